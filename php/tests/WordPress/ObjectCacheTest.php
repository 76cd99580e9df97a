<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\WordPress;

use Ephpm\Bridge\Tests\Support\Expiry;
use Ephpm\Bridge\Tests\Support\Processes;
use PHPUnit\Framework\TestCase;

/**
 * php/wordpress/object-cache.php, loaded by WordPress 6.1's own
 * wp_start_object_cache(). The first part follows what core's
 * tests/phpunit/tests/cache.php (Tests_Cache) checks of any object cache; the
 * second what a persistent one on ephpm-kv promises on top: entries outlive the
 * request (a new WP_Object_Cache), add() is atomic across requests, flushes
 * reach every request and nothing outside the site, incr/decr are atomic.
 */
final class ObjectCacheTest extends TestCase
{
    private \WP_Object_Cache $cache;

    protected function setUp(): void
    {
        wp_suspend_cache_addition(false);
        $this->cache = $this->newRequest();
        $this->cache->flush();
    }

    /** A fresh cache object, as the next request builds it; with core's test groups (of a multisite when $multisite). */
    private function newRequest(bool $multisite = false): \WP_Object_Cache
    {
        wp_cache_init();
        global $wp_object_cache;
        $wp_object_cache->multisite = $multisite; // the bootstrap's WordPress is a single site
        $wp_object_cache->add_global_groups(['global-cache-test', 'users', 'userlogins', 'usermeta', 'user_meta', 'useremail', 'userslugs', 'site-transient', 'site-options', 'blog-lookup', 'blog-details', 'rss', 'global-posts', 'blog-id-cache', 'networks', 'sites', 'site-details', 'blog_meta']);
        $wp_object_cache->add_non_persistent_groups(['counts', 'plugins', 'theme_json']);

        return $wp_object_cache;
    }

    /** set() writes cache (evictable); get_multiple() reads the misses of the runtime cache in one call into the store. */
    public function testSetIsEvictableAndGetMultipleReadsTheStore(): void
    {
        $grew = \Ephpm\Bridge\Tests\Support\Evictable::grows(fn () => $this->cache->set('e', 'v'));
        if ($grew !== null) {
            $this->assertTrue($grew);
        } else {
            $this->cache->set('e', 'v');
        }
        $this->cache->set('f', ['w']);
        $next = $this->newRequest(); // a new request: nothing in its runtime cache
        $misses = $next->cache_misses;
        $this->assertSame(['e' => 'v', 'x' => false, 'f' => ['w']], $next->get_multiple(['e', 'x', 'f']));
        $this->assertSame($misses + 1, $next->cache_misses);
        $this->assertSame(['e' => 'v', 'x' => false], $next->get_multiple(['e', 'x'])); // x is asked again, and still missing
    }

    // --- WordPress loaded the drop-in ---

    public function testWordPressLoadedTheDropIn(): void
    {
        $this->assertTrue(wp_using_ext_object_cache());
        $this->assertSame(realpath(EPHPM_WP_DROPIN), realpath((new \ReflectionFunction('wp_cache_get'))->getFileName()));
        $this->assertSame(realpath(EPHPM_WP_DROPIN), realpath((new \ReflectionClass('WP_Object_Cache'))->getFileName()));
        $this->assertTrue(function_exists('wp_cache_get_multiple'));
    }

    public function testCoreRegisteredItsGroupsThroughTheDropIn(): void
    {
        $boot = $GLOBALS['ephpm_wp_boot_cache'];
        $this->assertInstanceOf(\WP_Object_Cache::class, $boot);
        $global = (new \ReflectionProperty($boot, 'global_groups'))->getValue($boot);
        $nonPersistent = (new \ReflectionProperty($boot, 'non_persistent_groups'))->getValue($boot);
        foreach (['users', 'site-options', 'networks', 'blog-details'] as $g) {
            $this->assertArrayHasKey($g, $global, $g);
        }
        foreach (['counts', 'plugins'] as $g) { // wp_start_object_cache()'s, in 6.1
            $this->assertArrayHasKey($g, $nonPersistent, $g);
        }
    }

    // --- what core's Tests_Cache checks ---

    public function testMiss(): void
    {
        $this->assertFalse($this->cache->get('miss-' . mt_rand()));
        $this->assertFalse(wp_cache_get('miss', 'default', false, $found));
        $this->assertFalse($found);
    }

    public function testAddGet(): void
    {
        $this->assertTrue($this->cache->add('key', 'val'));
        $this->assertSame('val', $this->cache->get('key'));
    }

    public function testAddGetZeroNullFalse(): void
    {
        $this->assertTrue($this->cache->add('zero', 0));
        $this->assertSame(0, $this->cache->get('zero'));
        $this->assertTrue($this->cache->add('null', null));
        $this->assertNull($this->cache->get('null', 'default', false, $found));
        $this->assertTrue($found);
        $this->assertTrue($this->cache->add('false', false));
        $this->assertFalse($this->cache->get('false', 'default', false, $found));
        $this->assertTrue($found);
        $next = $this->newRequest();
        $this->assertSame(0, $next->get('zero'));
        $this->assertNull($next->get('null', 'default', false, $found));
        $this->assertTrue($found, 'a stored null is found in the next request');
        $next->get('false', 'default', false, $found);
        $this->assertTrue($found, 'a stored false is found in the next request');
    }

    public function testInvalidKeys(): void
    {
        $this->assertFalse($this->cache->add('', 'v'));
        $this->assertFalse($this->cache->set(' ', 'v'));
        $this->assertFalse($this->cache->get(''));
        $this->assertFalse($this->cache->set(null, 'v'));
        $this->assertFalse($this->cache->set(1.5, 'v'));
        // core's data_is_valid_key (ticket 56198)
        foreach (["\n", "\0", '  ', 0.0, false] as $bad) {
            $this->assertFalse($this->cache->add($bad, 'v'), var_export($bad, true) . ' accepted');
        }
        $this->assertTrue($this->cache->set(12, 'int key'));
        $this->assertSame('int key', $this->cache->get(12));
        foreach ([0, 1] as $good) {
            $this->assertTrue($this->cache->add($good, 'v'), var_export($good, true) . ' refused');
            $this->assertSame('v', $this->cache->get($good));
        }
        $this->assertTrue($this->cache->set('0', 's'), "'0' refused");
        $this->assertSame('s', $this->cache->get(0), "'0' and 0 are one key, as in core");
    }

    public function testAddTwiceFails(): void
    {
        $this->assertTrue($this->cache->add('key', 'val'));
        $this->assertFalse($this->cache->add('key', 'val2'));
        $this->assertSame('val', $this->cache->get('key'));
    }

    public function testAddWhileSuspended(): void
    {
        wp_suspend_cache_addition(true);
        $this->assertFalse($this->cache->add('key', 'val'));
        wp_suspend_cache_addition(false);
        $this->assertFalse($this->newRequest()->get('key'));
    }

    public function testReplace(): void
    {
        $this->assertFalse($this->cache->replace('key', 'val'), 'nothing to replace');
        $this->assertFalse($this->cache->get('key'));
        $this->assertTrue($this->cache->add('key', 'val'));
        $this->assertTrue($this->cache->replace('key', 'val2'));
        $this->assertSame('val2', $this->cache->get('key'));
        $this->assertSame('val2', $this->newRequest()->get('key'));
        $this->assertTrue(wp_cache_replace('key', 'val3'));
        $this->assertSame('val3', wp_cache_get('key'));
    }

    /** Core: empty( $group ) is 'default', so 0, '0', '', null and false name one group. */
    public function testEmptyGroupsAreTheDefaultGroup(): void
    {
        foreach ([0, '0', '', null, false] as $i => $group) {
            $this->assertTrue(wp_cache_set("key$i", $i, $group));
            $this->assertSame($i, wp_cache_get("key$i"), var_export($group, true));
            $this->assertSame($i, $this->newRequest()->get("key$i", 'default'), var_export($group, true));
        }
    }

    public function testSet(): void
    {
        $this->assertTrue($this->cache->set('key', 'val1'));
        $this->assertSame('val1', $this->cache->get('key'));
        $this->assertTrue($this->cache->set('key', 'val2'));
        $this->assertSame('val2', $this->cache->get('key'));
        $this->assertSame('val2', $this->newRequest()->get('key'));
    }

    public function testFlush(): void
    {
        $this->cache->set('key', 'val');
        $this->assertTrue($this->cache->flush());
        $this->assertFalse($this->cache->get('key'));
        $this->assertFalse($this->newRequest()->get('key'));
    }

    public function testObjectRefs(): void
    {
        $obj = new \stdClass();
        $obj->foo = 'alpha';
        $this->cache->set('key', $obj);
        $obj->foo = 'bravo';
        $got = $this->cache->get('key');
        $this->assertSame('alpha', $got->foo, 'stored a copy');
        $got->foo = 'charlie';
        $this->assertSame('alpha', $this->cache->get('key')->foo, 'returned a copy');
        $this->assertSame('alpha', $this->newRequest()->get('key')->foo);
    }

    public function testIncr(): void
    {
        $this->assertFalse($this->cache->incr('key'), 'a missing key is not created');
        $this->assertFalse($this->newRequest()->get('key'));
        $this->cache->set('key', 0);
        $this->assertSame(1, $this->cache->incr('key'));
        $this->assertSame(3, $this->cache->incr('key', 2));
        $this->assertSame(3, $this->cache->get('key'));
        $this->assertSame(3, $this->newRequest()->get('key'));
        $this->assertSame(4, wp_cache_incr('key'));
    }

    public function testIncrSeparateGroups(): void
    {
        $this->cache->set('key', 0, 'group1');
        $this->cache->set('key', 0, 'group2');
        $this->assertSame(1, $this->cache->incr('key', 1, 'group1'));
        $this->assertSame(1, $this->cache->get('key', 'group1'));
        $this->assertSame(0, $this->cache->get('key', 'group2'));
        $this->assertSame(1, $this->cache->incr('key', 1, 'group2'));
    }

    public function testIncrDecrNonIntegers(): void
    {
        $this->cache->set('s', '5');
        $this->assertSame(6, $this->cache->incr('s'));
        $this->cache->set('f', 1.5);
        $this->assertSame(2.5, $this->cache->incr('f'));
        $this->cache->set('word', 'abc');
        $this->assertSame(2, $this->cache->incr('word', 2), 'not numeric: counted from 0, as core');
        $this->assertSame(2, $this->newRequest()->get('word'));
    }

    public function testIncrKeepsTheTtl(): void
    {
        $this->cache->set('key', 1, 'default', 100);
        $this->cache->incr('key');
        $this->assertGreaterThan(90, $this->rawTtl('key'));
    }

    public function testDecr(): void
    {
        $this->assertFalse($this->cache->decr('key'));
        $this->cache->set('key', 0);
        $this->assertSame(0, $this->cache->decr('key'), 'never below zero');
        $this->cache->set('key', 3);
        $this->assertSame(2, $this->cache->decr('key'));
        $this->assertSame(0, $this->cache->decr('key', 2));
        $this->assertSame(0, $this->cache->decr('key', 5));
        $this->assertSame(0, $this->newRequest()->get('key'));
        $this->cache->set('key', 3);
        $this->assertSame(1, wp_cache_decr('key', 2));
    }

    public function testIncrDecrNonPersistent(): void
    {
        $this->assertFalse($this->cache->incr('key', 1, 'counts'));
        $this->cache->set('key', 2, 'counts');
        $this->assertSame(3, $this->cache->incr('key', 1, 'counts'));
        $this->assertSame(0, $this->cache->decr('key', 9, 'counts'));
    }

    public function testDelete(): void
    {
        $this->cache->set('key', 'val');
        $this->assertTrue($this->cache->delete('key'));
        $this->assertFalse($this->cache->get('key'));
        $this->assertFalse($this->cache->delete('key'), 'nothing left to delete');
        $this->assertFalse($this->newRequest()->get('key'));
        wp_cache_set('key', 'val');
        $this->assertTrue(wp_cache_delete('key', 'default'));
        $this->assertFalse(wp_cache_delete('key', 'default'));
    }

    public function testSwitchToBlogOnASingleSiteChangesNothing(): void
    {
        $this->assertFalse(is_multisite());
        $this->cache->set('key', 'val1');
        $this->cache->switch_to_blog(999);
        $this->assertSame('val1', $this->cache->get('key'));
        $this->cache->set('key', 'val2');
        $this->cache->switch_to_blog(1);
        $this->assertSame('val2', $this->cache->get('key'));
        $this->newRequest();
        wp_cache_switch_to_blog(999);
        $this->assertSame('val2', wp_cache_get('key'), 'in the store too');
    }

    public function testSwitchToBlog(): void
    {
        $this->cache = $this->newRequest(true);
        $this->cache->set('key', 'val1');
        $this->cache->set('key', 'global1', 'global-cache-test');
        $this->cache->switch_to_blog(2);
        $this->assertFalse($this->cache->get('key'), 'another blog, another key');
        $this->assertSame('global1', $this->cache->get('key', 'global-cache-test'));
        $this->cache->set('key', 'val2');
        $this->cache->set('key', 'global2', 'global-cache-test');
        $this->assertSame('val2', $this->cache->get('key'));
        $this->cache->switch_to_blog(1);
        $this->assertSame('val1', $this->cache->get('key'));
        $this->assertSame('global2', $this->cache->get('key', 'global-cache-test'));
        $this->newRequest(true);
        wp_cache_switch_to_blog(2);
        $this->assertSame('val2', wp_cache_get('key'), 'in the store per blog');
        $this->assertSame('global2', wp_cache_get('key', 'global-cache-test'));
    }

    public function testAddMultiple(): void
    {
        $this->cache->set('foo3', 'exists');
        $this->assertSame(['foo1' => true, 'foo2' => true, 'foo3' => false],
            wp_cache_add_multiple(['foo1' => 'bar', 'foo2' => 'bar', 'foo3' => 'bar'], 'default'));
        $this->assertSame('exists', wp_cache_get('foo3'));
    }

    public function testSetMultiple(): void
    {
        $this->assertSame(['foo1' => true, 'foo2' => true], wp_cache_set_multiple(['foo1' => 'bar', 'foo2' => 'bar'], 'group1'));
        $this->assertSame(['foo1' => 'bar', 'foo2' => 'bar'], $this->newRequest()->get_multiple(['foo1', 'foo2'], 'group1'));
    }

    public function testGetMultiple(): void
    {
        wp_cache_set('foo1', 'bar', 'group1');
        wp_cache_set('foo2', 'bar', 'group1');
        wp_cache_set('foo1', 'bar', 'group2');
        $this->assertSame(['foo1' => 'bar', 'foo2' => 'bar', 'foo3' => false],
            wp_cache_get_multiple(['foo1', 'foo2', 'foo3'], 'group1'));
        $this->newRequest();
        $this->assertSame(['foo1' => 'bar', 'foo2' => 'bar', 'foo3' => false],
            wp_cache_get_multiple(['foo1', 'foo2', 'foo3'], 'group1', true));
    }

    public function testDeleteMultiple(): void
    {
        wp_cache_set('foo1', 'bar', 'group1');
        wp_cache_set('foo2', 'bar', 'group1');
        wp_cache_set('foo3', 'bar', 'group2');
        $this->assertSame(['foo1' => true, 'foo2' => true, 'foo3' => false],
            wp_cache_delete_multiple(['foo1', 'foo2', 'foo3'], 'group1'));
        $this->assertSame('bar', wp_cache_get('foo3', 'group2'));
    }

    public function testFlushRuntime(): void
    {
        wp_cache_set('key', 'val', 'counts'); // non-persistent: runtime only
        wp_cache_set('key', 'val');
        $this->assertTrue(wp_cache_flush_runtime());
        $this->assertFalse(wp_cache_get('key', 'counts'));
        $this->assertSame('val', wp_cache_get('key'), 'the store keeps it');
    }

    public function testFlushGroup(): void
    {
        $this->newRequest(true);
        wp_cache_set('foo', 'bar', 'group-test');
        wp_cache_set('foo', 'bar', 'group-kept');
        wp_cache_switch_to_blog(2);
        wp_cache_set('foo', 'blog2', 'group-test');
        $this->assertTrue(wp_cache_flush_group('group-test'));
        $this->assertFalse(wp_cache_get('foo', 'group-test'));
        wp_cache_switch_to_blog(1);
        $this->assertFalse(wp_cache_get('foo', 'group-test'), 'every blog');
        $this->assertSame('bar', wp_cache_get('foo', 'group-kept'));
        $this->newRequest();
        $this->assertFalse(wp_cache_get('foo', 'group-test'), 'in the store');
        $this->assertSame('bar', wp_cache_get('foo', 'group-kept'));
        wp_cache_set('foo', 'again', 'group-test');
        $this->assertSame('again', $this->newRequest()->get('foo', 'group-test'), 'usable after its flush');
    }

    public function testSupports(): void
    {
        foreach (['add_multiple', 'set_multiple', 'get_multiple', 'delete_multiple', 'flush_runtime', 'flush_group'] as $f) {
            $this->assertTrue(wp_cache_supports($f), $f);
        }
        $this->assertFalse(wp_cache_supports('unknown'));
        $this->assertTrue(wp_cache_close());
    }

    // --- what a persistent cache on ephpm-kv promises on top ---

    public function testNonPersistentGroupsStayInTheRequest(): void
    {
        $this->newRequest()->get('warm'); // the site's counters exist
        $keys = ephpm_kv_stats()['keys'];
        wp_cache_set('key', 'val', 'counts');
        wp_cache_add('n', 1, 'counts');
        wp_cache_incr('n', 1, 'counts');
        $this->assertSame('val', wp_cache_get('key', 'counts'));
        $this->assertSame($keys, ephpm_kv_stats()['keys'], 'nothing stored');
        $this->assertFalse($this->newRequest()->get('key', 'counts'));
    }

    public function testExpireIsTheStoreTtl(): void
    {
        wp_cache_set('key', 'val', 'default', 60);
        $this->assertGreaterThan(55, $this->rawTtl('key'));
        $this->assertLessThanOrEqual(60, $this->rawTtl('key'));
        wp_cache_add('key2', 'val', 'default', 1);
        wp_cache_set('key3', 'val');
        $this->assertSame(-1, $this->rawTtl('key3'), '0: no expiry');
        Expiry::waitPast(1, 1.1, fn () => $this->newRequest()->get('key2') === false);
        $this->assertFalse($this->newRequest()->get('key2'));
    }

    /** add() writes cache too: core adds most of what it caches (get_option(), the meta caches). */
    public function testAddIsEvictable(): void
    {
        $grew = \Ephpm\Bridge\Tests\Support\Evictable::grows(fn () => $this->cache->add('added', str_repeat('a', 100)));
        if ($grew === null) {
            $this->markTestSkipped('this engine holds every write (a Redis, etcd)');
        }
        $this->assertTrue($grew);
    }

    /**
     * 20 flushes of a site of 10,000 options (200 to 1500 bytes each, and
     * alloptions) on a 16 MiB segment, one generation taking about two thirds
     * of it: after each flush, requests read every option as get_option()
     * does and add what they miss. The old generations go, not the live one:
     * by the fifth request the cache serves 85% of it or more again, no add is
     * refused, and a lock held throughout, a lock per round and a session per
     * round keep working. With held adds, the second flush filled the segment.
     */
    public function testTwentyFlushesOfATenThousandOptionSiteOn16MiB(): void
    {
        if ((string) ini_get('ephpm.shm_name') === '') {
            $this->markTestSkipped('runs once, in the shm-named mode: its child makes a 16 MiB segment of its own');
        }
        [$code, $out, $err] = Processes::run(Processes::phpWith([
            'ephpm.shm_name' => '', 'ephpm.shm_size' => '16M', 'ephpm.server' => '',
            'session.save_handler' => 'ephpm', 'session.use_cookies' => '0', 'session.cache_limiter' => '', 'session.use_strict_mode' => '0',
        ], __DIR__ . '/flush_site.php', '10000', '20', '5'));
        $this->assertSame(0, $code, $err . $out);
        $r = json_decode($out, true, 512, JSON_THROW_ON_ERROR);
        $this->assertSame(0, $r['refused'], 'adds refused (the store full)');
        $this->assertSame(0, $r['wrong'], 'values read back wrong');
        $this->assertTrue($r['held'], 'the lock held through the flushes');
        $this->assertSame(20, $r['sessions'], 'sessions readable at the end');
        $this->assertGreaterThan(100000, $r['stats']['evicted']);
        foreach ($r['rounds'] as $i => $round) {
            $this->assertTrue($round['lock'], "round $i's lock");
            // 85%, as kvtest checkCacheFlushedGenerations asks: the segment's SIEVE runs per stripe, so a stripe
            // may still hold old entries nobody reads. The worst of 20 rounds was 92.2 to 95.8% in 4 runs here,
            // 89.6% once in a rehearsal of the whole suite; plain SIEVE serves 0 to 60%.
            $this->assertGreaterThanOrEqual(8500, $round['hits'][4], "round $i: hits per request " . json_encode($round['hits']));
        }
        fwrite(STDERR, "\n20 flushes, 10,000 options, 16 MiB: hits of the 5 requests after each flush: "
            . implode(' ', array_map(fn ($x) => '[' . implode(',', $x['hits']) . ']', $r['rounds'])) . "\n");
    }

    public function testAddIsAtomicAcrossRequests(): void
    {
        $a = $this->newRequest();
        $b = new \WP_Object_Cache();
        $this->assertTrue($a->add('lock', 'a'));
        $this->assertFalse($b->add('lock', 'b'), 'the other request sees the key in the store');
        $this->assertSame('a', $b->get('lock'));
    }

    public function testFlushTouchesNothingOutsideTheSite(): void
    {
        ephpm_kv_set('raw:' . WP_CACHE_KEY_SALT, 'mine');
        $psr = new \Ephpm\Bridge\Psr\SimpleCache(WP_CACHE_KEY_SALT);
        $psr->set('k', 'psr');
        wp_cache_set('key', 'val');
        wp_cache_flush();
        $this->assertSame('mine', ephpm_kv_get('raw:' . WP_CACHE_KEY_SALT));
        $this->assertSame('psr', $psr->get('k'));
        ephpm_kv_del('raw:' . WP_CACHE_KEY_SALT);
    }

    public function testAnotherRequestsFlushIsSeenByTheNextRequest(): void
    {
        wp_cache_set('key', 'val');
        (new \WP_Object_Cache())->flush();
        $this->assertFalse($this->newRequest()->get('key'));
    }

    /**
     * A counter gone (a raw delete, a Redis evicting it) must not restart where
     * entries from before a flush still live: they would be served again.
     */
    public function testAFlushCounterThatVanishedDoesNotReviveFlushedEntries(): void
    {
        $gen = 'wp:' . rawurlencode(WP_CACHE_KEY_SALT) . ':gen';
        wp_cache_set('key', 'stale');
        $stale = (int) ephpm_kv_get($gen);
        wp_cache_flush();
        ephpm_kv_del($gen);
        $this->flushUntil($gen, $stale);
        $this->assertFalse($this->newRequest()->get('key'), 'an entry from before the flush came back');
    }

    public function testAGroupCounterThatVanishedDoesNotReviveFlushedEntries(): void
    {
        wp_cache_set('key', 'stale', 'grp');
        $base = 'wp:' . rawurlencode(WP_CACHE_KEY_SALT) . ':';
        $ggen = $base . ephpm_kv_get($base . 'gen') . ':ggen:grp';
        $stale = (int) ephpm_kv_get($ggen);
        wp_cache_flush_group('grp');
        ephpm_kv_del($ggen);
        $this->flushUntil($ggen, $stale, 'grp');
        $this->assertFalse($this->newRequest()->get('key', 'grp'), 'an entry from before the group flush came back');
    }

    /**
     * ephpm_kv_flush() from a maintenance script while a request is running:
     * the request keeps writing under the generation it read at its start.
     * Those entries must not become current when later flushes count the
     * restarted counter up to that generation again.
     */
    public function testEntriesARunningRequestWroteAfterAStoreFlushStayDead(): void
    {
        $running = $this->newRequest();
        $running->flush();
        $running->get('warm'); // reads the generation, as every request's first call
        $gen = 'wp:' . rawurlencode(WP_CACHE_KEY_SALT) . ':gen';
        $read = (int) ephpm_kv_get($gen);
        ephpm_kv_flush();
        $this->assertTrue($running->set('alloptions', 'stale'));
        $this->flushUntil($gen, $read);
        $this->assertFalse($this->newRequest()->get('alloptions'), 'an entry written under a dead generation is served');
    }

    /** An entry whose class is gone (renamed or removed by an update) is a miss, not a __PHP_Incomplete_Class. */
    public function testAnEntryOfAClassThatIsGoneIsAMiss(): void
    {
        wp_cache_set('key', 'placeholder');
        ephpm_kv_set($this->rawKey('key'), 'O:8:"Gone\\Cls":0:{}');
        $this->assertInstanceOf(\__PHP_Incomplete_Class::class, @unserialize(ephpm_kv_get($this->rawKey('key'))));
        $found = null;
        $this->assertFalse($this->newRequest()->get('key', 'default', false, $found));
        $this->assertFalse($found);
    }

    public function testLongKeys(): void
    {
        $key = str_repeat('k', 70000);
        $this->assertTrue(wp_cache_set($key, 'val'));
        $this->assertSame('val', $this->newRequest()->get($key));
        $this->assertFalse($this->newRequest()->get(str_repeat('k', 69999) . 'x'));
    }

    public function testGroupsWithColonsDoNotCollide(): void
    {
        // unencoded, both would be <gen>:g:0:1:0:1:k (group, its generation, blog, key)
        wp_cache_set('0:1:k', 'a', 'g');
        wp_cache_set('k', 'b', 'g:0:1');
        $next = $this->newRequest();
        $this->assertSame('a', $next->get('0:1:k', 'g'));
        $this->assertSame('b', $next->get('k', 'g:0:1'));
    }

    public function testConcurrentIncrementsAreExact(): void
    {
        $reason = Processes::unsharedReason();
        if ($reason !== null) {
            $this->markTestSkipped($reason);
        }
        wp_cache_set('counter', 0);
        $procs = [];
        $n = 4;
        $each = 300;
        for ($i = 0; $i < $n; $i++) {
            $procs[] = $this->startChild(sprintf('for ($i = 0; $i < %d; $i++) { wp_cache_incr("counter"); wp_cache_flush_runtime(); }', $each));
        }
        foreach ($procs as [$p, $pipes]) {
            $out = stream_get_contents($pipes[1]);
            $this->assertSame(0, proc_close($p), $out);
        }
        $this->assertSame($n * $each, $this->newRequest()->get('counter'));
    }

    public function testValueTheStoreRefusesIsAFailedSet(): void
    {
        wp_cache_set('key', 'old');
        $this->assertFalse(wp_cache_set('key', random_bytes(2 << 20)), 'over ephpm.max_value_size');
        $this->assertFalse(wp_cache_get('key'), 'this request does not serve what the store lacks');
        $this->assertFalse($this->newRequest()->get('key'), 'nor does the store: the old value is stale');
        $this->assertInstanceOf(\Ephpm\KvException::class, $GLOBALS['wp_object_cache']->last_error ?? $this->cache->last_error);
    }

    public function testStoreUnavailableIsAMissNotAFatalError(): void
    {
        $args = [PHP_BINARY, '-d', 'extension=' . Processes::extension(),
            '-d', 'ephpm.server=unix:///nonexistent/ephpm.sock', '-d', 'error_log=/dev/stderr', '-r',
            sprintf('require %s; wp_cache_init(); var_export([wp_cache_set("k", 1), wp_cache_get("k"), wp_cache_add("a", 1), wp_cache_incr("k"), wp_cache_delete("k"), wp_cache_flush()]);',
                var_export(EPHPM_WP_DROPIN, true))];
        [$rc, $out, $err] = Processes::run($args);
        $this->assertSame(0, $rc, $out . $err);
        $this->assertSame(var_export([false, false, false, false, false, false], true), $out);
        $this->assertSame(1, substr_count($err, 'ephpm object cache: '), "logged once per request:\n$err");
    }

    /**
     * Flushes (the site, or $group) in new requests until the counter $key
     * reaches $gen, at most 100 times: where a counter counting up from 0
     * again would land on a generation that still holds entries.
     */
    private function flushUntil(string $key, int $gen, ?string $group = null): void
    {
        for ($i = 0; $i < 100 && (int) ephpm_kv_get($key) < $gen; $i++) {
            $next = new \WP_Object_Cache();
            $group === null ? $next->flush() : $next->flush_group($group);
        }
    }

    /** The store key of a default-group key of blog 1, under the current generations. */
    private function rawKey(string $key): string
    {
        $base = 'wp:' . rawurlencode(WP_CACHE_KEY_SALT) . ':';
        $gen = ephpm_kv_get($base . 'gen') ?? '0';
        $ggen = ephpm_kv_get($base . $gen . ':ggen:default') ?? '0';

        return $base . $gen . ":default:$ggen:1:$key";
    }

    /** The store's TTL of a default-group key of blog 1, in whole seconds (-1: none). */
    private function rawTtl(string $key): int
    {
        $ttl = ephpm_kv_ttl($this->rawKey($key));

        return $ttl < 0 ? (int) $ttl : (int) ceil($ttl);
    }

    /** A PHP process with this test's engine settings, the same salt and the drop-in loaded, running $code. */
    private function startChild(string $code): array
    {
        $script = sprintf('define("WP_CACHE_KEY_SALT", %s); require %s; wp_cache_init(); %s',
            var_export(WP_CACHE_KEY_SALT, true), var_export(EPHPM_WP_DROPIN, true), $code);
        $p = proc_open(Processes::php('-r', $script), [1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes);
        $this->assertIsResource($p);

        return [$p, $pipes];
    }
}
