<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Symfony;

use Ephpm\Bridge\Symfony\EphpmAdapter;
use Ephpm\Bridge\Tests\Support\Expiry;
use Ephpm\Bridge\Tests\Support\Processes;
use Ephpm\KvException;
use PHPUnit\Framework\TestCase;
use Psr\Cache\CacheItemInterface;
use Psr\Cache\InvalidArgumentException as PsrInvalidArgumentException;
use Psr\Log\AbstractLogger;
use Symfony\Component\Cache\Adapter\AbstractAdapter;
use Symfony\Component\Cache\CacheItem;
use Symfony\Component\Cache\Exception\InvalidArgumentException;
use Symfony\Contracts\Cache\CallbackInterface;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * EphpmAdapter against Debian's symfony/cache 5.4. The checks of Symfony's
 * AdapterTestCase and of the cache/integration-tests CachePoolTest it extends
 * (Debian ships neither), written here from what they check, under the same
 * names where one exists; then what is ours: namespacing and clear() across
 * namespaces, the engine's TTLs, store failures, and two processes sharing a
 * pool (server mode or a named shared segment; skipped elsewhere).
 */
final class EphpmAdapterTest extends TestCase
{
    /** @var list<EphpmAdapter> pools to clear after the test */
    private array $pools = [];
    private string $namespace;

    protected function setUp(): void
    {
        $this->namespace = 'test-' . bin2hex(random_bytes(6)); // each test its own pool: the server outlives tests
    }

    /** Items are cache (evictable: a full store drops them, never a lock); the generation stays held. */
    public function testItemsAreEvictable(): void
    {
        $pool = $this->pool();
        $grew = \Ephpm\Bridge\Tests\Support\Evictable::grows(fn () => $pool->save($pool->getItem('e')->set(str_repeat('v', 100))));
        if ($grew === null) {
            $this->markTestSkipped('this engine holds every write');
        }
        $this->assertTrue($grew);
        $this->assertSame(str_repeat('v', 100), $pool->getItem('e')->get());
    }

    /** getItems() reads every item in one call into the store (ephpm_kv_get_multi): its hits and misses. */
    public function testGetItemsReadsHitsAndMisses(): void
    {
        $pool = $this->pool();
        $pool->save($pool->getItem('a')->set(1));
        $pool->save($pool->getItem('c')->set('three'));
        $seen = [];
        foreach ($pool->getItems(['a', 'b', 'c']) as $key => $item) {
            $seen[$key] = [$item->isHit(), $item->get()];
        }
        ksort($seen); // Symfony yields the hits first
        $this->assertSame(['a' => [true, 1], 'b' => [false, null], 'c' => [true, 'three']], $seen);
    }

    protected function tearDown(): void
    {
        foreach ($this->pools as $pool) {
            $pool->clear();
        }
        $this->pools = [];
    }

    private function pool(int $defaultLifetime = 0, ?string $namespace = null): EphpmAdapter
    {
        $pool = new EphpmAdapter($namespace ?? $this->namespace, $defaultLifetime);

        return $this->pools[] = $pool;
    }

    /** The engine key an item of this test's namespace lives under now. */
    private function rawKey(string $key, ?string $namespace = null): string
    {
        $base = 'sf-cache:' . ($namespace ?? $this->namespace) . ':';

        return $base . (ephpm_kv_get($base . 'gen') ?? '0') . ':' . $key;
    }

    private static function logger(): AbstractLogger
    {
        return new class () extends AbstractLogger {
            /** @var list<array{string, string, array}> */
            public array $records = [];

            public function log($level, $message, array $context = []): void
            {
                $this->records[] = [$level, (string) $message, $context];
            }
        };
    }

    // --- CachePoolTest -------------------------------------------------------

    public function testBasicUsage(): void
    {
        $cache = $this->pool();
        $cache->save($cache->getItem('key')->set('4711'));
        $cache->save($cache->getItem('key2')->set('4712'));

        $this->assertTrue($cache->getItem('key')->isHit());
        $this->assertSame('4711', $cache->getItem('key')->get());
        $this->assertSame('4712', $cache->getItem('key2')->get());

        $cache->deleteItem('key');
        $this->assertFalse($cache->getItem('key')->isHit());
        $this->assertTrue($cache->getItem('key2')->isHit());

        $cache->clear();
        $this->assertFalse($cache->getItem('key')->isHit());
        $this->assertFalse($cache->getItem('key2')->isHit());
    }

    public function testGetItem(): void
    {
        $cache = $this->pool();
        $cache->save($cache->getItem('key')->set('value'));

        $item = $cache->getItem('key');
        $this->assertSame('value', $item->get());
        $this->assertSame('key', $item->getKey());

        $item = $cache->getItem('key2');
        $this->assertFalse($item->isHit());
        $this->assertNull($item->get());
    }

    public function testGetItems(): void
    {
        $cache = $this->pool();
        $count = 0;
        foreach ($cache->getItems(['foo', 'bar', 'baz']) as $key => $item) {
            $this->assertFalse($item->isHit());
            $cache->save($item->set('v-' . $key));
            $count++;
        }
        $this->assertSame(3, $count);

        $seen = [];
        foreach ($cache->getItems(['foo', 'bar', 'baz', 'biz']) as $key => $item) {
            $this->assertSame($key, $item->getKey(), 'keys are preserved');
            $this->assertSame($key !== 'biz', $item->isHit());
            $this->assertSame($key !== 'biz' ? 'v-' . $key : null, $item->get());
            $seen[] = $key;
        }
        sort($seen);
        $this->assertSame(['bar', 'baz', 'biz', 'foo'], $seen, 'a missing key is yielded too, as a miss');
    }

    public function testGetItemsEmpty(): void
    {
        $items = $this->pool()->getItems([]);
        $this->assertIsIterable($items);
        $this->assertSame([], iterator_to_array($items));
    }

    public function testHasItem(): void
    {
        $cache = $this->pool();
        $cache->save($cache->getItem('key')->set('value'));
        $this->assertTrue($cache->hasItem('key'));
        $this->assertFalse($cache->hasItem('key2'));
    }

    public function testClear(): void
    {
        $cache = $this->pool();
        $cache->save($cache->getItem('key')->set('value'));
        $this->assertTrue($cache->clear());
        $this->assertFalse($cache->getItem('key')->isHit());
        $this->assertFalse($cache->hasItem('key'));
        // the pool works on after a clear
        $this->assertTrue($cache->save($cache->getItem('key')->set('again')));
        $this->assertSame('again', $cache->getItem('key')->get());
    }

    public function testClearWithDeferredItems(): void
    {
        $cache = $this->pool();
        $cache->saveDeferred($cache->getItem('key')->set('value'));
        $cache->clear();
        $cache->commit();
        $this->assertFalse($cache->getItem('key')->isHit());
    }

    public function testDeleteItem(): void
    {
        $cache = $this->pool();
        $cache->save($cache->getItem('key')->set('value'));
        $this->assertTrue($cache->deleteItem('key'));
        $this->assertFalse($cache->getItem('key')->isHit());
        $this->assertFalse($cache->hasItem('key'));
        $this->assertNull(ephpm_kv_get($this->rawKey('key')), 'deleted from the store, not only hidden');
        $this->assertTrue($cache->deleteItem('key2'), 'deleting a missing item is a success');
    }

    public function testDeleteItems(): void
    {
        $cache = $this->pool();
        foreach ($cache->getItems(['foo', 'bar', 'baz']) as $key => $item) {
            $cache->save($item->set($key));
        }
        $this->assertTrue($cache->deleteItems(['foo', 'bar', 'biz']));
        $this->assertFalse($cache->getItem('foo')->isHit());
        $this->assertFalse($cache->getItem('bar')->isHit());
        $this->assertTrue($cache->getItem('baz')->isHit());
        $this->assertFalse($cache->getItem('biz')->isHit());
    }

    public function testSave(): void
    {
        $cache = $this->pool();
        $this->assertTrue($cache->save($cache->getItem('key')->set('value')));
        $this->assertSame('value', $cache->getItem('key')->get());
    }

    public function testSaveExpired(): void
    {
        $cache = $this->pool();
        $item = $cache->getItem('key')->set('value');
        $cache->save($item->expiresAt(\DateTime::createFromFormat('U', (string) (time() + 10))));
        $this->assertTrue($cache->hasItem('key'));
        $cache->save($item->expiresAt(\DateTime::createFromFormat('U', (string) (time() - 1))));
        $this->assertFalse($cache->getItem('key')->isHit(), 'an item expired when saved is deleted');
        $this->assertNull(ephpm_kv_get($this->rawKey('key')));
    }

    public function testSaveWithoutExpire(): void
    {
        $cache = $this->pool();
        $cache->save($cache->getItem('test_ttl_null')->set('data'));
        $item = $this->pool()->getItem('test_ttl_null'); // a new pool instance
        $this->assertTrue($item->isHit());
        $this->assertSame('data', $item->get());
    }

    public function testDeferredSave(): void
    {
        $cache = $this->pool();
        $this->assertTrue($cache->saveDeferred($cache->getItem('key')->set('4711')));
        $cache->saveDeferred($cache->getItem('key2')->set('4712'));
        $this->assertTrue($cache->hasItem('key'));
        $this->assertTrue($cache->getItem('key')->isHit());
        $this->assertTrue($cache->getItem('key2')->isHit());
        $this->assertTrue($cache->commit());
        $this->assertSame('4711', $this->pool()->getItem('key')->get(), 'committed to the store');
        $this->assertSame('4712', $this->pool()->getItem('key2')->get());
    }

    public function testDeferredIsNotInTheStoreBeforeCommit(): void
    {
        $cache = $this->pool();
        $cache->saveDeferred($cache->getItem('key')->set('4711'));
        $this->assertFalse($this->pool()->hasItem('key'), 'another pool does not see a deferred item');
        $cache->commit();
        $this->assertTrue($this->pool()->hasItem('key'));
    }

    public function testDeferredExpired(): void
    {
        $cache = $this->pool();
        $item = $cache->getItem('key')->set('4711');
        $cache->saveDeferred($item->expiresAt(\DateTime::createFromFormat('U', (string) (time() - 1))));
        $this->assertFalse($cache->hasItem('key'));
        $cache->commit();
        $this->assertFalse($cache->getItem('key')->isHit());
    }

    public function testDeleteDeferredItem(): void
    {
        $cache = $this->pool();
        $cache->saveDeferred($cache->getItem('key')->set('4711'));
        $this->assertTrue($cache->getItem('key')->isHit());
        $cache->deleteItem('key');
        $this->assertFalse($cache->hasItem('key'));
        $this->assertFalse($cache->getItem('key')->isHit());
        $cache->commit();
        $this->assertFalse($cache->hasItem('key'));
        $this->assertFalse($cache->getItem('key')->isHit());
    }

    public function testDeferredSaveWithoutCommit(): void
    {
        $cache = new EphpmAdapter($this->namespace);
        $cache->saveDeferred($cache->getItem('key')->set('4711'));
        unset($cache);
        gc_collect_cycles();
        $this->assertTrue($this->pool()->getItem('key')->isHit(), 'committed when the pool is destroyed');
    }

    public function testCommit(): void
    {
        $cache = $this->pool();
        $cache->saveDeferred($cache->getItem('key')->set('value'));
        $this->assertTrue($cache->commit());
        $this->assertSame('value', $cache->getItem('key')->get());
        $this->assertTrue($cache->commit(), 'nothing deferred: still true');
    }

    public function testExpiration(): void
    {
        $cache = $this->pool();
        $cache->save($cache->getItem('after')->set('v')->expiresAfter(1));
        $cache->save($cache->getItem('at')->set('v')->expiresAt(new \DateTime('@' . (time() + 1))));
        $cache->save($cache->getItem('long')->set('v2')->expiresAfter(366 * 86400));
        $cache->save($cache->getItem('forever')->set('v3'));
        $dlt = $this->pool(1, $this->namespace . '-dlt');
        $dlt->save($dlt->getItem('key.dlt')->set('value'));
        $this->assertTrue($cache->getItem('after')->isHit());
        $this->assertTrue($dlt->getItem('key.dlt')->isHit());

        usleep(2100000); // expiresAt(now + 1 s) may have been 1.99 s ahead
        $item = $cache->getItem('after');
        $this->assertFalse($item->isHit(), 'expiresAfter(1) is gone after 2 s');
        $this->assertNull($item->get());
        $this->assertFalse($cache->getItem('at')->isHit(), 'expiresAt(+1 s) is gone');
        $this->assertFalse($dlt->getItem('key.dlt')->isHit(), 'the default lifetime applies');
        $this->assertSame('v2', $cache->getItem('long')->get());
        $this->assertSame('v3', $cache->getItem('forever')->get());
    }

    /** Also CachePoolTest's testExpiresAtWithNull, testExpiresAfterWithNull, testExpirationWithASecondRequest, without their sleeps. */
    public function testLifetimeIsTheEnginesTtl(): void
    {
        $cache = $this->pool();
        $cache->save($cache->getItem('k')->set('v')->expiresAfter(100));
        $this->assertEqualsWithDelta(100, ephpm_kv_ttl($this->rawKey('k')), 1.5);
        $cache->save($cache->getItem('k')->set('v')->expiresAt(new \DateTime('+2 hours')));
        $this->assertEqualsWithDelta(7200, ephpm_kv_ttl($this->rawKey('k')), 1.5);

        $cache->save($cache->getItem('k')->set('foobar')); // a second save without expiry: none any more
        $this->assertSame(-1, ephpm_kv_ttl($this->rawKey('k')));
        $cache->save($cache->getItem('k')->set('v')->expiresAfter(100));
        $cache->save($cache->getItem('k')->set('v')->expiresAfter(null));
        $this->assertSame(-1, ephpm_kv_ttl($this->rawKey('k')));
        $cache->save($cache->getItem('k')->set('v')->expiresAfter(100));
        $cache->save($cache->getItem('k')->set('v')->expiresAt(null));
        $this->assertSame(-1, ephpm_kv_ttl($this->rawKey('k')));
        $this->assertTrue($cache->getItem('k')->isHit());

        $dlt = $this->pool(50, $this->namespace . '-dlt');
        $dlt->save($dlt->getItem('k')->set('v'));
        $this->assertEqualsWithDelta(50, ephpm_kv_ttl($this->rawKey('k', $this->namespace . '-dlt')), 1.5);
        $dlt->save($dlt->getItem('k')->set('v')->expiresAfter(500)); // the item's own lifetime wins
        $this->assertEqualsWithDelta(500, ephpm_kv_ttl($this->rawKey('k', $this->namespace . '-dlt')), 1.5);
    }

    public function testKeyLength(): void
    {
        $cache = $this->pool();
        $key = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.';
        $this->assertTrue($cache->save($cache->getItem($key)->set('value')));
        $this->assertTrue($cache->hasItem($key));
    }

    /** Keys longer than the engine's 64 KiB (with the prefix) are hashed, never refused or truncated into another key. */
    public function testKeysOverTheEngineLimit(): void
    {
        $cache = $this->pool();
        $a = str_repeat('k', 70000) . 'a';
        $b = str_repeat('k', 70000) . 'b';
        $this->assertTrue($cache->save($cache->getItem($a)->set('A')));
        $this->assertTrue($cache->save($cache->getItem($b)->set('B')));
        $this->assertSame('A', $this->pool()->getItem($a)->get());
        $this->assertSame('B', $this->pool()->getItem($b)->get());
        $near = str_repeat('n', 65536 - \strlen($this->rawKey('')) - 20); // just under the hashing limit: stored as is
        $this->assertTrue($cache->save($cache->getItem($near)->set('N')));
        $this->assertNotNull(ephpm_kv_get($this->rawKey($near)));
        $this->assertSame('N', $cache->getItem($near)->get());
    }

    public static function invalidKeys(): array
    {
        return [
            [true], [false], [null], [2], [2.5], [''], ['{str'], ['rand{'], ['rand{str'], ['rand}str'], ['rand(str'],
            ['rand)str'], ['rand/str'], ['rand\\str'], ['rand@str'], ['rand:str'], [new \stdClass()], [['array']],
        ];
    }

    /** @dataProvider invalidKeys */
    #[DataProvider('invalidKeys')]
    public function testGetItemInvalidKeys(mixed $key): void
    {
        $this->expectException(PsrInvalidArgumentException::class);
        $this->pool()->getItem($key);
    }

    /** @dataProvider invalidKeys */
    #[DataProvider('invalidKeys')]
    public function testGetItemsInvalidKeys(mixed $key): void
    {
        $this->expectException(PsrInvalidArgumentException::class);
        $this->pool()->getItems(['key1', $key, 'key2']);
    }

    /** @dataProvider invalidKeys */
    #[DataProvider('invalidKeys')]
    public function testHasItemInvalidKeys(mixed $key): void
    {
        $this->expectException(PsrInvalidArgumentException::class);
        $this->pool()->hasItem($key);
    }

    /** @dataProvider invalidKeys */
    #[DataProvider('invalidKeys')]
    public function testDeleteItemInvalidKeys(mixed $key): void
    {
        $this->expectException(PsrInvalidArgumentException::class);
        $this->pool()->deleteItem($key);
    }

    /** @dataProvider invalidKeys */
    #[DataProvider('invalidKeys')]
    public function testDeleteItemsInvalidKeys(mixed $key): void
    {
        $this->expectException(PsrInvalidArgumentException::class);
        $this->pool()->deleteItems(['key1', $key, 'key2']);
    }

    public static function values(): array
    {
        $object = new \stdClass();
        $object->a = 'foo';
        $object->nested = [1.5, null];

        return [
            'string' => ['5'],
            'integer' => [5],
            'negative' => [PHP_INT_MIN],
            'float' => [1.23456789],
            'float exact' => [0.1 + 0.2],
            'true' => [true],
            'false' => [false],
            'null' => [null],
            'array' => [['a' => 'foo', 2 => 'bar']],
            'object' => [$object],
            'DateTime' => [new \DateTimeImmutable('2020-02-02 10:00:00.123456 UTC')],
            'binary' => [random_bytes(256) . "\0\xff\0"],
            'empty string' => [''],
            'compressible' => [str_repeat('abc', 10000)],
            // AdapterTestCase's testWeirdDataMatchingMetadataWrappedValues
            'looks like metadata' => [[1234567890 => [1]]],
        ];
    }

    /**
     * CachePoolTest's testDataType* and testSavingObject: what comes back is what was stored, type and all.
     *
     * @dataProvider values
     */
    #[DataProvider('values')]
    public function testDataTypes(mixed $value): void
    {
        $cache = $this->pool();
        $this->assertTrue($cache->save($cache->getItem('key')->set($value)));
        $this->assertTrue($cache->hasItem('key'));
        $item = $this->pool()->getItem('key'); // another instance: from the store
        $this->assertTrue($item->isHit());
        if (\is_object($value)) {
            $this->assertEquals($value, $item->get());
            $this->assertSame(\get_class($value), \get_class($item->get()));
        } else {
            $this->assertSame($value, $item->get());
        }
    }

    public function testIsHitDeferred(): void
    {
        $cache = $this->pool();
        $cache->saveDeferred($cache->getItem('key')->set('value'));
        $this->assertTrue($cache->getItem('key')->isHit());
        $cache->commit();
        $this->assertTrue($cache->getItem('key')->isHit());
    }

    public function testSaveDeferredWhenChangingValues(): void
    {
        $cache = $this->pool();
        $cache->saveDeferred($cache->getItem('key')->set('value'));
        $cache->getItem('key')->set('new value');
        $this->assertSame('value', $cache->getItem('key')->get());
        $cache->commit();
        $this->assertSame('value', $cache->getItem('key')->get());
    }

    public function testSaveDeferredOverwrite(): void
    {
        $cache = $this->pool();
        $cache->saveDeferred($cache->getItem('key')->set('value'));
        $cache->saveDeferred($cache->getItem('key')->set('new value'));
        $this->assertSame('new value', $cache->getItem('key')->get());
        $cache->commit();
        $this->assertSame('new value', $this->pool()->getItem('key')->get());
    }

    // --- AdapterTestCase ----------------------------------------------------

    public function testGet(): void
    {
        $cache = $this->pool();
        $value = mt_rand();
        $this->assertSame($value, $cache->get('foo', function (CacheItem $item) use ($value) {
            $this->assertSame('foo', $item->getKey());

            return $value;
        }));
        $this->assertSame($value, $cache->getItem('foo')->get());

        $isHit = true;
        $this->assertSame($value, $cache->get('foo', function () use (&$isHit) {
            $isHit = false;
        }, 0));
        $this->assertTrue($isHit, 'a hit does not call the callback');

        // beta INF: recompute now, whatever the expiry
        $this->assertNull($cache->get('foo', function (CacheItem $item) use (&$isHit, $value) {
            $isHit = false;
            $this->assertTrue($item->isHit());
            $this->assertSame($value, $item->get());
        }, INF));
        $this->assertFalse($isHit);

        $this->assertSame($value, $cache->get('bar', new class ($value) implements CallbackInterface {
            public function __construct(private int $value)
            {
            }

            public function __invoke(CacheItemInterface $item, bool &$save): mixed
            {
                return $this->value;
            }
        }));
    }

    public function testRecursiveGet(): void
    {
        $cache = $this->pool();
        $counter = 0;
        $v = $cache->get('k1', function () use (&$counter, $cache) {
            $cache->get('k2', function () use (&$counter) {
                return ++$counter;
            });

            return $cache->get('k2', function () use (&$counter) {
                return ++$counter;
            });
        });
        $this->assertSame(1, $counter);
        $this->assertSame(1, $v);
        $this->assertSame(1, $cache->get('k2', fn () => 2));
    }

    public function testDontSaveWhenAskedNotTo(): void
    {
        $cache = $this->pool();
        $v1 = $cache->get('some-key', function ($item, &$save) {
            $save = false;

            return 1;
        });
        $this->assertSame(1, $v1);
        $this->assertSame(2, $cache->get('some-key', fn () => 2), 'the first value was not cached');
        $this->assertSame(2, $cache->get('some-key', function () {
            $this->fail('the value comes from the cache');
        }));
    }

    public function testGetMetadata(): void
    {
        $cache = $this->pool();
        $cache->get('foo', function (CacheItem $item) {
            $item->expiresAfter(10);
            usleep(200000);

            return 'bar';
        });
        $metadata = $this->pool()->getItem('foo')->getMetadata(); // read back from the store
        $this->assertEqualsWithDelta(200, $metadata[CacheItem::METADATA_CTIME], 100);
        $this->assertEqualsWithDelta(10 + time(), $metadata[CacheItem::METADATA_EXPIRY], 1.5);
        $this->assertEqualsWithDelta(10, ephpm_kv_ttl($this->rawKey('foo')), 1.5 + Expiry::slack());
    }

    public function testNotUnserializable(): void
    {
        $cache = $this->pool();
        $cache->setLogger($logger = self::logger());
        $cache->save($cache->getItem('foo')->set(new NotUnserializable()));
        $this->assertFalse($cache->getItem('foo')->isHit());
        foreach ($cache->getItems(['foo']) as $item) {
            $this->assertFalse($item->isHit());
        }
        $this->assertNotEmpty($logger->records, 'the failed read is logged');
        $this->assertStringContainsString('Failed to fetch', $logger->records[0][1]);
    }

    /** AdapterTestCase's testClearPrefix expects only the prefix cleared: we clear the whole namespace (documented). */
    public function testClearPrefixClearsTheNamespace(): void
    {
        $cache = $this->pool();
        $cache->save($cache->getItem('foobar')->set(1));
        $cache->save($cache->getItem('barfoo')->set(2));
        $this->assertTrue($cache->clear('foo'));
        $this->assertFalse($cache->hasItem('foobar'));
        $this->assertFalse($cache->hasItem('barfoo'), 'more than asked, never less');
    }

    public function testNullByteInKey(): void
    {
        $cache = $this->pool();
        $cache->save($cache->getItem("a\0b")->set(123));
        $this->assertSame(123, $cache->getItem("a\0b")->get());
        $this->assertFalse($cache->hasItem('a'));
    }

    public function testNumericKeysWorkAfterMemoryLeakPrevention(): void
    {
        $cache = $this->pool();
        for ($i = 0; $i < 1001; ++$i) {
            $cache->save($cache->getItem((string) $i)->set('value-' . $i));
        }
        $this->assertSame('value-50', $cache->getItem('50')->get());
    }

    // --- namespaces and clear() ------------------------------------------------

    public function testKeysAreNamespaced(): void
    {
        $cache = $this->pool();
        ephpm_kv_set('key', 'raw');
        ephpm_kv_set('psr16::0:key', 'psr16');
        try {
            $cache->save($cache->getItem('key')->set('pool'));
            $this->assertSame('raw', ephpm_kv_get('key'), 'a raw key of the same name is untouched');
            $this->assertSame('psr16', ephpm_kv_get('psr16::0:key'));
            $raw = ephpm_kv_get($this->rawKey('key'));
            $this->assertNotNull($raw, 'stored as sf-cache:<namespace>:<generation>:<key>');
            $this->assertSame('pool', (new \Symfony\Component\Cache\Marshaller\DefaultMarshaller())->unmarshall($raw));

            $other = $this->pool(0, $this->namespace . '-other');
            $this->assertFalse($other->hasItem('key'));
            $empty = $this->pool(0, '');
            $empty->deleteItem('key');
            $this->assertTrue($cache->hasItem('key'), 'the pool without a namespace is another pool');
        } finally {
            ephpm_kv_del('key');
            ephpm_kv_del('psr16::0:key');
        }
    }

    /**
     * The counter gone (a raw delete, a Redis evicting it, ephpm_kv_flush()
     * while another process still writes under the generation it read) must
     * not restart where items from before a clear() still live.
     */
    public function testAGenerationCounterThatVanishedDoesNotReviveClearedItems(): void
    {
        $cache = $this->pool();
        $cache->save($cache->getItem('key')->set('stale'));
        $this->assertTrue($cache->clear());
        ephpm_kv_del('sf-cache:' . $this->namespace . ':gen');
        $this->assertFalse($cache->getItem('key')->isHit(), 'an item from before the clear came back');
        $this->assertTrue($cache->save($cache->getItem('key')->set('fresh')));
        $this->assertSame('fresh', $cache->getItem('key')->get());
    }

    public function testClearOfAVanishedCounterDoesNotLandOnAGenerationInUse(): void
    {
        $cache = $this->pool();
        // a process read generation 1, then the store was flushed, then it wrote
        $raw = 'sf-cache:' . $this->namespace . ':1:key';
        ephpm_kv_set($raw, (new \Symfony\Component\Cache\Marshaller\DefaultMarshaller())->marshall(['key' => 'stale'], $failed)['key']);
        try {
            $this->assertTrue($cache->clear());
            $this->assertFalse($cache->getItem('key')->isHit(), 'clear() restarted the counter at 1');
        } finally {
            ephpm_kv_del($raw);
        }
    }

    public function testClearDropsOnlyItsNamespace(): void
    {
        $a = $this->pool();
        $b = $this->pool(0, $this->namespace . '-b');
        $a->save($a->getItem('key')->set('a'));
        $b->save($b->getItem('key')->set('b'));
        ephpm_kv_set($this->namespace . ':key', 'raw');
        try {
            $this->assertTrue($a->clear());
            $this->assertFalse($a->hasItem('key'));
            $this->assertFalse($this->pool()->hasItem('key'), 'another instance of the same namespace sees the clear at once');
            $this->assertSame('b', $b->getItem('key')->get(), 'another namespace keeps its items');
            $this->assertSame('raw', ephpm_kv_get($this->namespace . ':key'));
        } finally {
            ephpm_kv_del($this->namespace . ':key');
        }
    }

    /** What clear() costs: the old generation's entries stay in the store until their TTL. */
    public function testClearLeavesOrphansUntilTheirTtl(): void
    {
        $cache = $this->pool();
        $cache->save($cache->getItem('forever')->set('v'));
        $cache->save($cache->getItem('short')->set('v')->expiresAfter(30));
        $forever = $this->rawKey('forever');
        $short = $this->rawKey('short');
        $cache->clear();
        $this->assertNotNull(ephpm_kv_get($forever), 'orphaned, not deleted');
        $this->assertEqualsWithDelta(30, ephpm_kv_ttl($short), 1.5, 'an orphan still expires');
        ephpm_kv_del($forever);
        ephpm_kv_del($short);
    }

    // --- validation and store failures ----------------------------------------

    public function testConstructorRefusesWhatItCannotHonour(): void
    {
        foreach ([-1, EphpmAdapter::MAX_TTL + 1] as $lifetime) {
            try {
                new EphpmAdapter('x', $lifetime);
                $this->fail("default lifetime $lifetime accepted");
            } catch (InvalidArgumentException $e) {
            }
        }
        foreach (['a:b', 'a{b', str_repeat('n', 65500)] as $namespace) {
            try {
                new EphpmAdapter($namespace);
                $this->fail('namespace accepted: ' . substr($namespace, 0, 20));
            } catch (InvalidArgumentException $e) {
            }
        }
        $this->assertInstanceOf(AbstractAdapter::class, new EphpmAdapter('x', EphpmAdapter::MAX_TTL));
    }

    /** A value the store refuses: save() false, logged with the KvException, and the old value gone (not stale). */
    public function testRefusedValueIsLoggedAndDropsTheOldValue(): void
    {
        $cache = $this->pool();
        $cache->setLogger($logger = self::logger());
        $cache->save($cache->getItem('key')->set('old'));
        $big = random_bytes(2 << 20); // over ephpm.max_value_size (1M), incompressible
        $this->assertFalse($cache->save($cache->getItem('key')->set($big)));
        $this->assertFalse($cache->getItem('key')->isHit(), 'the old value is not served as if the save had worked');
        $this->assertCount(1, $logger->records);
        [$level, $message, $context] = $logger->records[0];
        $this->assertSame('warning', $level);
        $this->assertStringContainsString('Failed to save key', $message);
        $this->assertInstanceOf(KvException::class, $context['exception']);
        $this->assertSame(KvException::VALUE_TOO_LARGE, $context['exception']->getCode());
    }

    public function testOneRefusedValueInACommitKeepsTheOthers(): void
    {
        $cache = $this->pool();
        $cache->setLogger($logger = self::logger());
        $cache->saveDeferred($cache->getItem('a')->set('A'));
        $cache->saveDeferred($cache->getItem('big')->set(random_bytes(2 << 20)));
        $cache->saveDeferred($cache->getItem('z')->set('Z'));
        $this->assertFalse($cache->commit());
        $this->assertSame('A', $cache->getItem('a')->get());
        $this->assertSame('Z', $cache->getItem('z')->get());
        $this->assertFalse($cache->getItem('big')->isHit());
        $this->assertCount(1, $logger->records, 'exactly the refused item is logged');
        $this->assertSame('big', $logger->records[0][2]['key']);
    }

    public function testLifetimeOverTheEnginesMaximumIsRefused(): void
    {
        $cache = $this->pool();
        $cache->setLogger($logger = self::logger());
        $cache->save($cache->getItem('key')->set('old'));
        $this->assertFalse($cache->save($cache->getItem('key')->set('new')->expiresAt(new \DateTime('+200 years'))));
        $this->assertFalse($cache->getItem('key')->isHit(), 'neither stored with a shorter TTL nor left stale');
        $this->assertCount(1, $logger->records);
        $this->assertStringContainsString('maximum', $logger->records[0][1]);
        $this->assertTrue($cache->save($cache->getItem('key')->set('ok')->expiresAfter(EphpmAdapter::MAX_TTL)));
    }

    /** A store that cannot be reached: every call logs its KvException and fails softly (misses, false), none is fatal. */
    public function testUnreachableStoreIsLoggedNeverFatal(): void
    {
        $sock = sys_get_temp_dir() . '/ephpm-no-server-' . bin2hex(random_bytes(4)) . '.sock';
        $out = json_decode($this->child(['ephpm.server' => 'unix://' . $sock, 'ephpm.server_timeout' => '0.2'], 'unreachable'), true);
        $this->assertSame(false, $out['hit']);
        $this->assertSame(false, $out['save']);
        $this->assertSame(false, $out['has']);
        $this->assertSame(false, $out['delete']);
        $this->assertSame(false, $out['clear']);
        $this->assertSame('computed', $out['get'], 'get() still computes the value');
        $u = KvException::UNAVAILABLE;
        $this->assertSame([
            "warning Failed to fetch key: $u",     // getItem
            "warning Failed to fetch key: $u",     // getItem before save
            "warning Failed to save key: $u",
            "warning Failed to check if key: $u",  // hasItem
            "warning Failed to delete key: $u",
            "warning Failed to clear the cache: $u",
            "warning Failed to fetch key: $u",     // get(): the fetch, then the computed value's save
            "warning Failed to save key: $u",
        ], $out['logged']);
    }

    /** A generation counter overwritten by raw use: calls fail logged, none builds a key from it (a long one would be a fatal ValueError). */
    public function testOverwrittenGenerationCounterIsLoggedNeverFatal(): void
    {
        $cache = $this->pool();
        $cache->setLogger($logger = self::logger());
        $cache->save($cache->getItem('key')->set('v'));
        ephpm_kv_set('sf-cache:' . $this->namespace . ':gen', str_repeat('x', 65536 - 40));
        $this->assertFalse($cache->getItem('key')->isHit());
        $this->assertFalse($cache->save($cache->getItem('key')->set('w')));
        $this->assertCount(3, $logger->records); // the fetch, the fetch before save, the save
        $this->assertStringContainsString('holds no count', $logger->records[0][1]);
        ephpm_kv_del('sf-cache:' . $this->namespace . ':gen');
        $this->assertTrue($cache->save($cache->getItem('key')->set('w')), 'deleting the counter makes the pool usable again');
        $this->assertSame('w', $cache->getItem('key')->get());
    }

    // --- across processes ------------------------------------------------------

    public function testTwoProcessesShareAnItem(): void
    {
        $reason = Processes::unsharedReason();
        if ($reason !== null) {
            $this->markTestSkipped($reason);
        }
        $cache = $this->pool();
        $cache->save($cache->getItem('shared')->set(['from' => 'parent', 'n' => 1]));
        $this->assertSame('{"from":"parent","n":1}', $this->child([], 'get', 'shared'));

        $this->assertSame('saved', $this->child([], 'set', 'back', '{"from":"child"}'));
        $this->assertSame(['from' => 'child'], $cache->getItem('back')->get());

        $this->assertSame('cleared', $this->child([], 'clear'));
        $this->assertFalse($cache->hasItem('shared'), "the child's clear() is seen here at once");
        $this->assertSame('miss', $this->child([], 'get', 'back'));
    }

    /**
     * Runs cache_child.php with this process's php.ini and ephpm settings
     * (those in $ini replacing them); returns its output line.
     *
     * @param array<string, string> $ini
     */
    private function child(array $ini, string ...$args): string
    {
        $cmd = Processes::phpWith($ini, __DIR__ . '/cache_child.php', $this->namespace, ...$args);
        $proc = proc_open($cmd, [1 => ['pipe', 'w'], 2 => STDERR], $pipes);
        $this->assertIsResource($proc);
        $out = stream_get_contents($pipes[1]);
        $this->assertSame(0, proc_close($proc), 'the child failed');

        return trim($out);
    }
}

final class NotUnserializable
{
    public function __wakeup()
    {
        throw new \Exception(__CLASS__);
    }
}
