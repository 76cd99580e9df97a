<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Laravel;

use Ephpm\Bridge\Tests\Support\Expiry;
use Ephpm\Bridge\Laravel\EphpmStore;
use Illuminate\Cache\Repository;
use Illuminate\Contracts\Cache\Store;
use PHPUnit\Framework\TestCase;

/**
 * The store through Illuminate\Cache\Repository, modelled on what Laravel's
 * cache store tests check (tests/Cache/CacheRepositoryTest, the
 * {Array,Redis,Memcached}Store tests and tests/Integration/Cache/*StoreTest):
 * get/put/forget, TTLs, add, increments, many/putMany, forever, flush, prefix.
 */
final class EphpmRepositoryTest extends TestCase
{
    private Repository $cache;

    protected function setUp(): void
    {
        ephpm_kv_flush();
        $this->cache = new Repository(new EphpmStore('repotest'));
    }

    /** put() and forever() write cache (evictable); many() reads in one call into the store. */
    public function testItemsAreEvictableAndManyReadsThemAll(): void
    {
        $grew = \Ephpm\Bridge\Tests\Support\Evictable::grows(fn () => $this->cache->put('e', 'v', 60) && $this->cache->forever('f', 'w'));
        if ($grew !== null) {
            $this->assertTrue($grew);
        } else {
            $this->cache->put('e', 'v', 60);
            $this->cache->forever('f', 'w');
        }
        $this->assertSame(['e' => 'v', 'missing' => null, 'f' => 'w'], $this->cache->many(['e', 'missing', 'f']));
    }

    public function testStoreImplementsTheContracts(): void
    {
        $store = $this->cache->getStore();
        $this->assertInstanceOf(Store::class, $store);
        $this->assertInstanceOf(\Illuminate\Contracts\Cache\LockProvider::class, $store);
        $this->assertSame('repotest:', $store->getPrefix());
        $this->assertSame('', (new EphpmStore())->getPrefix());
    }

    public function testItemsCanBeSetAndRetrieved(): void
    {
        $this->assertNull($this->cache->get('foo'));
        $this->assertSame('default', $this->cache->get('foo', 'default'));
        $this->assertTrue($this->cache->put('foo', 'bar', 10));
        $this->assertSame('bar', $this->cache->get('foo'));
        $this->assertTrue($this->cache->has('foo'));
        $this->assertTrue($this->cache->missing('baz'));
        // A stored false is there (has() is "get() is not null").
        $this->cache->put('false', false, 10);
        $this->assertTrue($this->cache->has('false'));
    }

    public function testValuesRoundTripAsLaravelStoresSerializeThem(): void
    {
        $object = new \stdClass();
        $object->name = 'taylor';
        $values = [
            'array' => ['a' => 1, 'b' => [true, null, 1.5]],
            'object' => $object,
            'false' => false,
            'true' => true,
            'empty' => '',
            'binary' => "\0\xff\n",
            'serialized-looking string' => 'a:1:{i:0;i:1;}',
        ];
        foreach ($values as $key => $value) {
            $this->cache->put($key, $value, 10);
        }
        foreach ($values as $key => $value) {
            $this->assertEquals($value, $this->cache->get($key), $key);
            $this->assertSame(gettype($value), gettype($this->cache->get($key)), $key);
        }
        // Numbers are stored as their text (so that increment() works on
        // them) and come back as numeric strings, as from RedisStore.
        $this->cache->put('int', 42, 10);
        $this->cache->put('float', 1.5, 10);
        $this->cache->put('zero', 0, 10);
        $this->assertSame('42', ephpm_kv_get(self::raw('int')));
        $this->assertEquals(42, $this->cache->get('int'));
        $this->assertEquals(1.5, $this->cache->get('float'));
        $this->assertEquals(0, $this->cache->get('zero'));
        $this->assertNotNull($this->cache->get('zero'));
        // Non-finite floats are not numbers a store can add to: serialized.
        $this->cache->put('inf', INF, 10);
        $this->assertSame(INF, $this->cache->get('inf'));
        $this->cache->put('nan', NAN, 10);
        $this->assertNan($this->cache->get('nan'));
    }

    public function testItemsExpire(): void
    {
        $this->cache->put('foo', 'bar', 1);
        $this->cache->put('counter', 999, 1);
        $ttl = ephpm_kv_ttl(self::raw('foo'));
        $this->assertGreaterThan(0 - Expiry::slack(), $ttl);
        $this->assertLessThanOrEqual(1, $ttl);
        Expiry::waitPast(1, 1.1, fn () => !ephpm_kv_exists(self::raw('foo')) && !ephpm_kv_exists(self::raw('counter')));
        $this->assertNull($this->cache->get('foo'));
        // An expired counter counts again from 0, as a missing one.
        $this->assertSame(1, $this->cache->increment('counter'));
    }

    public function testPutWithTtlAsDateTime(): void
    {
        $this->cache->put('foo', 'bar', new \DateTimeImmutable('+1 minute'));
        $this->assertSame('bar', $this->cache->get('foo'));
        $ttl = ephpm_kv_ttl(self::raw('foo'));
        $this->assertGreaterThan(50, $ttl);
        $this->assertLessThanOrEqual(60, $ttl);
    }

    public function testPutWithZeroOrNegativeTtlForgets(): void
    {
        $this->cache->forever('foo', 'bar');
        $this->cache->put('foo', 'baz', 0);
        $this->assertNull($this->cache->get('foo'));
        $this->cache->forever('foo', 'bar');
        $this->cache->put('foo', 'baz', -5);
        $this->assertNull($this->cache->get('foo'));
    }

    public function testStorePutWithNonPositiveSecondsKeepsTheItemBriefly(): void
    {
        // Called on the store directly (Repository forgets instead): as
        // RedisStore's max(1, $seconds), never "forever".
        $this->cache->getStore()->put('foo', 'bar', 0);
        $ttl = ephpm_kv_ttl(self::raw('foo'));
        $this->assertGreaterThan(0 - Expiry::slack(), $ttl);
        $this->assertLessThanOrEqual(1, $ttl);
    }

    public function testForever(): void
    {
        $this->assertTrue($this->cache->forever('foo', 'bar'));
        $this->assertSame('bar', $this->cache->get('foo'));
        $this->assertSame(-1, (int) ephpm_kv_ttl(self::raw('foo')));
        // put() with no TTL is forever too.
        $this->cache->put('baz', 'qux');
        $this->assertSame(-1, (int) ephpm_kv_ttl(self::raw('baz')));
    }

    public function testForget(): void
    {
        $this->cache->put('foo', 'bar', 10);
        $this->assertTrue($this->cache->forget('foo'));
        $this->assertNull($this->cache->get('foo'));
        // Nothing left to forget: false, as from Laravel's Redis, Memcached, APC and array stores.
        $this->assertFalse($this->cache->forget('foo'));
        $this->cache->put('foo', 'bar', 10);
        $this->assertFalse($this->cache->deleteMultiple(['foo', 'missing']), 'deleteMultiple() fails if one forget() does');
        $this->assertNull($this->cache->get('foo'), 'but deletes the others');
        $this->assertSame('bar', $this->cache->pull('missing', 'bar'));
        $this->cache->put('foo', 'bar', 10);
        $this->assertSame('bar', $this->cache->pull('foo'));
        $this->assertNull($this->cache->get('foo'));
    }

    public function testAddStoresOnlyWhenMissing(): void
    {
        $this->assertTrue($this->cache->add('foo', 'bar', 10));
        $this->assertFalse($this->cache->add('foo', 'baz', 10));
        $this->assertSame('bar', $this->cache->get('foo'));
        $this->assertFalse($this->cache->add('foo', 'baz', 0), 'add with a non-positive TTL');
    }

    public function testAddGoesThroughTheStoresSetnx(): void
    {
        // Repository::add() with a TTL calls the store's add(): one setnx. A
        // key that appears between a get and a put (here: written raw, as
        // another process would) must not be overwritten.
        $key = self::raw('foo');
        ephpm_kv_set($key, serialize('theirs'), 10);
        $this->assertFalse($this->cache->getStore()->add('foo', 'mine', 10));
        $this->assertSame('theirs', $this->cache->get('foo'));

        $this->assertTrue($this->cache->add('bar', ['x'], 2));
        $ttl = ephpm_kv_ttl(self::raw('bar'));
        $this->assertGreaterThan(1 - Expiry::slack(), $ttl);
        $this->assertLessThanOrEqual(2, $ttl);

        // A DateInterval TTL reaches the store as its seconds.
        $this->assertTrue($this->cache->add('baz', 'v', new \DateInterval('PT61S')));
        $ttl = ephpm_kv_ttl(self::raw('baz'));
        $this->assertGreaterThan(60 - Expiry::slack(), $ttl);
        $this->assertLessThanOrEqual(61, $ttl);
    }

    public function testAddSucceedsOnceTheItemExpired(): void
    {
        $this->assertTrue($this->cache->add('foo', 'bar', 1));
        Expiry::waitPast(1, 1.1, fn () => !ephpm_kv_exists(self::raw('foo')));
        $this->assertTrue($this->cache->add('foo', 'baz', 10));
        $this->assertSame('baz', $this->cache->get('foo'));
    }

    public function testAddWithoutTtl(): void
    {
        // Laravel 8's Repository::add() without a TTL is its own get-then-forever.
        $this->assertTrue($this->cache->add('foo', 'bar'));
        $this->assertFalse($this->cache->add('foo', 'baz'));
        $this->assertSame('bar', $this->cache->get('foo'));
    }

    public function testIncrementsAndDecrements(): void
    {
        $this->assertSame(1, $this->cache->increment('counter'));
        $this->assertSame(6, $this->cache->increment('counter', 5));
        $this->assertSame(5, $this->cache->decrement('counter'));
        $this->assertSame(2, $this->cache->decrement('counter', 3));
        $this->assertSame(-1, $this->cache->decrement('missing'));
        $this->assertEquals(2, $this->cache->get('counter'));
        $this->assertSame(-1, (int) ephpm_kv_ttl(self::raw('counter')), 'a counter created by increment() never expires');

        // A numeric string counts as its number.
        $this->cache->put('string', '1', 10);
        $this->assertSame(2, $this->cache->increment('string'));
        $this->assertSame(1, $this->cache->decrement('string'));

        // On a value put() as an integer, keeping its TTL.
        $this->cache->put('hits', 10, 60);
        $this->assertSame(11, $this->cache->increment('hits'));
        $ttl = ephpm_kv_ttl(self::raw('hits'));
        $this->assertGreaterThan(50, $ttl);
        $this->cache->forever('forever', 3);
        $this->assertSame(4, $this->cache->increment('forever'));
    }

    public function testValuesAreNotStoredByReference(): void
    {
        $object = new \stdClass();
        $object->foo = true;
        $this->cache->put('object', $object, 10);
        $object->bar = true;
        $got = $this->cache->get('object');
        $this->assertTrue($got->foo);
        $this->assertFalse(property_exists($got, 'bar'), 'a change after put() reached the cache');
        $got->baz = true;
        $this->assertFalse(property_exists($this->cache->get('object'), 'baz'), 'a change after get() reached the cache');
    }

    public function testIncrementOfANonIntegerThrows(): void
    {
        $this->cache->put('foo', 'bar', 10);
        $this->expectException(\Ephpm\KvException::class);
        $this->expectExceptionCode(\Ephpm\KvException::NOT_INTEGER);
        $this->cache->increment('foo');
    }

    public function testMany(): void
    {
        $this->cache->put('foo', 'bar', 10);
        $this->cache->put('baz', ['qux'], 10);
        $this->assertSame(
            ['foo' => 'bar', 'baz' => ['qux'], 'missing' => null],
            $this->cache->many(['foo', 'baz', 'missing']),
        );
        // With defaults.
        $this->assertSame(
            ['foo' => 'bar', 'missing' => 'default'],
            $this->cache->many(['foo', 'missing' => 'default']),
        );
        $this->assertSame(
            ['foo' => 'bar', 'missing' => 'x'],
            $this->cache->getMultiple(['foo', 'missing'], 'x'),
        );
    }

    public function testPutMany(): void
    {
        $this->assertTrue($this->cache->putMany(['foo' => 'bar', 'baz' => [1, 2], 'n' => 3], 10));
        $this->assertSame('bar', $this->cache->get('foo'));
        $this->assertSame([1, 2], $this->cache->get('baz'));
        $this->assertSame(4, $this->cache->increment('n'));
        $ttl = ephpm_kv_ttl(self::raw('foo'));
        $this->assertGreaterThan(5, $ttl);
        $this->assertLessThanOrEqual(10, $ttl);

        // Without a TTL: forever.
        $this->assertTrue($this->cache->putMany(['a' => 'b']));
        $this->assertSame(-1, (int) ephpm_kv_ttl(self::raw('a')));
        // setMultiple / deleteMultiple (PSR-16 on the Repository).
        $this->assertTrue($this->cache->setMultiple(['x' => 'y'], 10));
        $this->assertTrue($this->cache->deleteMultiple(['x', 'foo']));
        $this->assertSame(['x' => null, 'foo' => null], $this->cache->many(['x', 'foo']));
    }

    public function testRemember(): void
    {
        $calls = 0;
        $fn = function () use (&$calls) {
            $calls++;
            return ['computed'];
        };
        $this->assertSame(['computed'], $this->cache->remember('foo', 10, $fn));
        $this->assertSame(['computed'], $this->cache->remember('foo', 10, $fn));
        $this->assertSame(['computed'], $this->cache->rememberForever('bar', $fn));
        $this->assertSame(['computed'], $this->cache->rememberForever('bar', $fn));
        $this->assertSame(2, $calls);
    }

    public function testFlush(): void
    {
        $this->cache->put('foo', 'bar', 10);
        $this->cache->forever('baz', 'qux');
        $this->assertTrue($this->cache->flush());
        $this->assertNull($this->cache->get('foo'));
        $this->assertNull($this->cache->get('baz'));
        $this->cache->put('foo', 'after', 10);
        $this->assertSame('after', $this->cache->get('foo'));
    }

    /**
     * The counter gone (a raw delete, a Redis evicting it, ephpm_kv_flush()
     * while another process still writes under the generation it read) must
     * not restart where items from before a flush still live.
     */
    public function testAGenerationCounterThatVanishedDoesNotReviveFlushedItems(): void
    {
        $this->cache->forever('foo', 'stale');
        $this->assertTrue($this->cache->flush());
        ephpm_kv_del(EphpmStore::NAMESPACE . 'gen:repotest:');
        $this->assertNull($this->cache->get('foo'), 'an item from before the flush came back');
        $this->cache->put('foo', 'fresh', 10);
        $this->assertSame('fresh', $this->cache->get('foo'));
    }

    public function testFlushOfAVanishedCounterDoesNotLandOnAGenerationInUse(): void
    {
        // a process read generation 1, then the store was flushed, then it wrote
        ephpm_kv_set(EphpmStore::NAMESPACE . 'g1:repotest:foo', serialize('stale'));
        $this->assertTrue($this->cache->flush());
        $this->assertNull($this->cache->get('foo'), 'flush() restarted the counter at 1');
    }

    /** cache:clear must not free a held lock (two holders), nor drop other prefixes', sessions' or raw keys. */
    public function testFlushDropsOnlyThisPrefixsItems(): void
    {
        $lock = $this->cache->lock('job', 30);
        $this->assertTrue($lock->get());
        $other = new Repository(new EphpmStore('other'));
        $other->put('foo', 'theirs', 10);
        ephpm_kv_set('raw', 'kept');
        $this->cache->put('foo', 'mine', 10);
        $sameStoreElsewhere = new Repository(new EphpmStore('repotest'));
        $this->assertSame('mine', $sameStoreElsewhere->get('foo'));

        $this->assertTrue($this->cache->flush());

        $this->assertNull($sameStoreElsewhere->get('foo'), 'a flush is seen by every instance of the prefix');
        $this->assertFalse($this->cache->lock('job', 30)->get(), 'the flush freed a held lock');
        $this->assertTrue($lock->release());
        $this->assertSame('theirs', $other->get('foo'));
        $this->assertSame('kept', ephpm_kv_get('raw'));
    }

    public function testPrefixesKeepStoresApart(): void
    {
        $other = new Repository(new EphpmStore('other'));
        $none = new Repository(new EphpmStore());
        $this->cache->put('foo', 'mine', 10);
        $other->put('foo', 'theirs', 10);
        $none->put('foo', 'unprefixed', 10);
        ephpm_kv_set('foo', 'raw');

        $this->assertSame('mine', $this->cache->get('foo'));
        $this->assertSame('theirs', $other->get('foo'));
        $this->assertSame('unprefixed', $none->get('foo'));
        $this->assertSame('raw', ephpm_kv_get('foo'));
        $this->assertSame(serialize('mine'), ephpm_kv_get(self::raw('foo')));
    }

    public function testTagsWork(): void
    {
        // TaggableStore: tags are kept through the store's forever/get.
        $this->cache->tags(['people'])->put('john', 'doe', 10);
        $this->assertSame('doe', $this->cache->tags(['people'])->get('john'));
        $this->cache->tags(['people'])->flush();
        $this->assertNull($this->cache->tags(['people'])->get('john'));
    }

    /** The engine key of this suite's item $key under the prefix's current generation. */
    private static function raw(string $key): string
    {
        (new EphpmStore('repotest'))->get($key); // starts the counter when there is none yet
        $gen = ephpm_kv_get(EphpmStore::NAMESPACE . 'gen:repotest:');

        return EphpmStore::NAMESPACE . "g$gen:repotest:$key";
    }
}
