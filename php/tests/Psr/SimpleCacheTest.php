<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Psr;

use Ephpm\Bridge\Psr\SimpleCache;
use Ephpm\Bridge\Tests\Support\Evictable;
use Ephpm\Bridge\Tests\Support\Expiry;
use Ephpm\Bridge\Tests\Support\Processes;
use PHPUnit\Framework\TestCase;
use Psr\SimpleCache\CacheInterface;
use Psr\SimpleCache\InvalidArgumentException;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * The behaviours php-cache/integration-tests' SimpleCacheTest checks, on
 * Ephpm\Bridge\Psr\SimpleCache, plus what this adapter promises itself:
 * namespacing (no collision with raw ephpm_kv_* keys or other namespaces) and a
 * clear() that touches only its own namespace and is seen by other processes.
 * Every test has a namespace of its own, so the suite can share a server.
 */
final class SimpleCacheTest extends TestCase
{
    private SimpleCache $cache;
    private string $ns;

    protected function setUp(): void
    {
        $this->ns = 't' . bin2hex(random_bytes(6));
        $this->cache = new SimpleCache($this->ns);
    }

    /** Entries are cache (evictable); getMultiple() reads them in one call into the store. */
    public function testEntriesAreEvictableAndGetMultipleReadsThemAll(): void
    {
        $grew = Evictable::grows(fn () => $this->cache->set('e', ['v']));
        if ($grew !== null) {
            $this->assertTrue($grew);
        } else {
            $this->cache->set('e', ['v']);
        }
        $this->cache->set('f', 2);
        $this->assertSame(['e' => ['v'], 'x' => 'dflt', 'f' => 2], $this->cache->getMultiple(['e', 'x', 'f'], 'dflt'));
    }

    public static function invalidArrayKeys(): array
    {
        return [[''], [true], [false], [null], [2.5], ['{str'], ['rand{'], ['rand{str'], ['rand}str'], ['rand(str'],
            ['rand)str'], ['rand/str'], ['rand\\str'], ['rand@str'], ['rand:str'], [new \stdClass()], [['array']]];
    }

    public static function invalidKeys(): array
    {
        return array_merge(self::invalidArrayKeys(), [[2]]);
    }

    public static function invalidTtl(): array
    {
        return [[''], [true], [false], ['abc'], [2.5], [' 1'], ['12foo'], ['025'], [new \stdClass()], [['array']]];
    }

    public static function validKeys(): array
    {
        return [['AbC19_.'], ['1234567890123456789012345678901234567890123456789012345678901234'], [str_repeat('a', 300)]];
    }

    public static function validData(): array
    {
        return [['AbC19_.'], [4711], [47.11], [true], [false], [null], [['key' => 'value']], [new \stdClass()]];
    }

    public function testImplementsPsr16(): void
    {
        $this->assertInstanceOf(CacheInterface::class, $this->cache);
    }

    public function testSetGet(): void
    {
        $this->assertTrue($this->cache->set('key', 'value'));
        $this->assertSame('value', $this->cache->get('key'));
        $this->assertTrue($this->cache->set('key', 'value2'), 'overwrite');
        $this->assertSame('value2', $this->cache->get('key'));
    }

    public function testGetDefault(): void
    {
        $this->assertNull($this->cache->get('missing'));
        $this->assertSame('dflt', $this->cache->get('missing', 'dflt'));
        $obj = new \stdClass();
        $this->assertSame($obj, $this->cache->get('missing', $obj), 'an object default is returned as it is');
    }

    public function testNullOverwrite(): void
    {
        $this->cache->set('key', 5);
        $this->assertTrue($this->cache->set('key', null));
        $this->assertNull($this->cache->get('key', 'default'), 'null overwrote the previous value');
    }

    public function testDelete(): void
    {
        $this->assertTrue($this->cache->delete('key'), 'deleting a missing key is a success');
        $this->cache->set('key', 'value');
        $this->assertTrue($this->cache->delete('key'));
        $this->assertNull($this->cache->get('key'));
    }

    public function testHas(): void
    {
        $this->assertFalse($this->cache->has('key0'));
        $this->cache->set('key0', 'value');
        $this->assertTrue($this->cache->has('key0'));
        $this->cache->set('key1', null);
        $this->assertTrue($this->cache->has('key1'), 'a stored null is present');
    }

    public function testSetTtlExpires(): void
    {
        $this->assertTrue($this->cache->set('key1', 'value', 1));
        $this->assertTrue($this->cache->set('key2', 'value', new \DateInterval('PT1S')));
        $this->assertTrue($this->cache->set('key3', 'value', 60));
        $this->assertSame('value', $this->cache->get('key1'));
        Expiry::waitPast(1, 1.1, fn () => !$this->cache->has('key1') && !$this->cache->has('key2'));
        $this->assertNull($this->cache->get('key1'), 'int TTL');
        $this->assertFalse($this->cache->has('key2'), 'DateInterval TTL');
        $this->assertSame('value', $this->cache->get('key3'));
    }

    public function testTtlIsPassedToTheStore(): void
    {
        $this->cache->set('k', 'v', new \DateInterval('PT1H'));
        $ttl = $this->rawTtl('k');
        $this->assertGreaterThan(3590, $ttl);
        $this->assertLessThanOrEqual(3600, $ttl);
        $this->cache->set('forever', 'v');
        $this->assertSame(-1, $this->rawTtl('forever'), 'null TTL with no default: no expiry');
        $withDefault = new SimpleCache($this->ns, 120);
        $withDefault->set('d', 'v');
        $this->assertGreaterThan(110, $this->rawTtl('d'));
    }

    public function testZeroOrNegativeTtlDeletes(): void
    {
        $this->cache->set('key0', 'value');
        $this->cache->set('key1', 'value');
        $this->cache->set('key2', 'value');
        $this->assertTrue($this->cache->set('key0', 'new', 0));
        $this->assertTrue($this->cache->set('key1', 'new', -1));
        $this->assertTrue($this->cache->set('key2', 'new', \DateInterval::createFromDateString('-1 second')));
        $this->assertFalse($this->cache->has('key0'));
        $this->assertNull($this->cache->get('key1'));
        $this->assertFalse($this->cache->has('key2'));
        $this->assertTrue($this->cache->setMultiple(['key3' => 'a', 'key4' => 'b'], 0));
        $this->assertSame(['key3' => null, 'key4' => null], $this->cache->getMultiple(['key3', 'key4']));
    }

    public function testTtlOverTheStoreMaximumIsRefused(): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->cache->set('key', 'value', SimpleCache::MAX_TTL + 1);
    }

    public function testClear(): void
    {
        $this->cache->set('key0', 'value0');
        $this->cache->set('key1', 'value1');
        $this->assertTrue($this->cache->clear());
        $this->assertFalse($this->cache->has('key0'));
        $this->assertNull($this->cache->get('key1'));
        $this->assertTrue($this->cache->set('key0', 'after'), 'usable after clear');
        $this->assertSame('after', $this->cache->get('key0'));
    }

    /**
     * The counter gone (a raw delete, a Redis evicting it, ephpm_kv_flush()
     * while another process still writes under the generation it read) must
     * not restart where items from before a clear() still live.
     */
    public function testAGenerationCounterThatVanishedDoesNotReviveClearedItems(): void
    {
        $this->cache->set('key', 'stale');
        $this->cache->clear();
        ephpm_kv_del(SimpleCache::PREFIX . $this->ns . ':gen');
        $this->assertNull($this->cache->get('key'), 'an item from before the clear came back');
        $this->assertTrue($this->cache->set('key', 'fresh'));
        $this->assertSame('fresh', $this->cache->get('key'));
    }

    public function testClearOfAVanishedCounterDoesNotLandOnAGenerationInUse(): void
    {
        // a process read generation 1, then the store was flushed, then it wrote
        ephpm_kv_set(SimpleCache::PREFIX . $this->ns . ':1:key', serialize('stale'));
        $this->cache->clear();
        $this->assertNull($this->cache->get('key'), 'clear() restarted the counter at 1');
        ephpm_kv_del(SimpleCache::PREFIX . $this->ns . ':1:key');
    }

    public function testClearLeavesOtherNamespacesAndRawKeys(): void
    {
        $other = new SimpleCache($this->ns . 'x');
        $raw = 'raw:' . $this->ns;
        ephpm_kv_set($raw, 'mine');
        $other->set('key', 'other');
        $this->cache->set('key', 'this');
        $this->cache->clear();
        $this->assertNull($this->cache->get('key'));
        $this->assertSame('other', $other->get('key'));
        $this->assertSame('mine', ephpm_kv_get($raw));
        ephpm_kv_del($raw);
    }

    public function testNamespacesDoNotCollide(): void
    {
        $a = new SimpleCache($this->ns . 'a');
        $b = new SimpleCache($this->ns . 'b');
        $a->set('key', 'A');
        $b->set('key', 'B');
        $this->assertSame('A', $a->get('key'));
        $this->assertSame('B', $b->get('key'));
        ephpm_kv_set('key', 'raw');
        $this->assertSame('A', $a->get('key'), 'a raw key of the same name is another key');
        ephpm_kv_del('key');
        $this->assertTrue($a->has('key'));
    }

    public function testAnotherInstanceSharesTheNamespaceAndSeesItsClear(): void
    {
        $twin = new SimpleCache($this->ns);
        $this->cache->set('key', 'value');
        $this->assertSame('value', $twin->get('key'));
        $twin->clear();
        $this->assertNull($this->cache->get('key'));
    }

    public function testClearInAnotherProcessIsSeen(): void
    {
        $reason = Processes::unsharedReason();
        if ($reason !== null) {
            $this->markTestSkipped($reason);
        }
        $this->cache->set('key', 'value');
        $this->assertSame('gone', $this->runChild('$c->clear(); echo $c->has("key") ? "has" : "gone";'));
        $this->assertNull($this->cache->get('key'));
        $this->cache->set('key', 'again');
        $this->assertSame('again', $this->runChild('echo $c->get("key");'));
    }

    public function testGetMultiple(): void
    {
        $this->cache->set('key0', 'value0');
        $this->assertSame(['key0' => 'value0', 'key1' => null], $this->cache->getMultiple(['key0', 'key1']));
        $this->assertSame(['key1' => 'd'], $this->cache->getMultiple(['key1'], 'd'));
        $this->assertSame([], $this->cache->getMultiple([]));
    }

    public function testMultipleWithGenerators(): void
    {
        $gen = static function (array $a) {
            yield from $a;
        };
        $this->assertTrue($this->cache->setMultiple($gen(['key0' => 'value0', 'key1' => 'value1'])));
        $this->assertSame(['key0' => 'value0', 'key1' => 'value1', 'key2' => null],
            $this->cache->getMultiple($gen(['key0', 'key1', 'key2'])));
        $this->assertTrue($this->cache->deleteMultiple($gen(['key0'])));
        $this->assertSame(['key0' => null, 'key1' => 'value1'], $this->cache->getMultiple(['key0', 'key1']));
    }

    public function testSetMultipleWithIntegerArrayKey(): void
    {
        $this->assertTrue($this->cache->setMultiple(['0' => 'value0']));
        $this->assertSame('value0', $this->cache->get('0'));
    }

    public function testSetMultipleTtl(): void
    {
        $this->cache->setMultiple(['key2' => 'value2', 'key3' => 'value3'], new \DateInterval('PT1S'));
        $this->cache->setMultiple(['key4' => 'value4'], 60);
        Expiry::waitPast(1, 1.1, fn () => !$this->cache->has('key2') && !$this->cache->has('key3'));
        $this->assertNull($this->cache->get('key2'));
        $this->assertFalse($this->cache->has('key3'));
        $this->assertSame('value4', $this->cache->get('key4'));
    }

    public function testDeleteMultiple(): void
    {
        $this->assertTrue($this->cache->deleteMultiple([]));
        $this->cache->setMultiple(['key0' => 'value0', 'key1' => 'value1']);
        $this->assertTrue($this->cache->deleteMultiple(['key0', 'missing']));
        $this->assertFalse($this->cache->has('key0'));
        $this->assertSame('value1', $this->cache->get('key1'));
    }

    /** @dataProvider invalidKeys */
    #[DataProvider('invalidKeys')]
    public function testGetInvalidKeys(mixed $key): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->cache->get($key);
    }

    /** @dataProvider invalidKeys */
    #[DataProvider('invalidKeys')]
    public function testSetInvalidKeys(mixed $key): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->cache->set($key, 'foobar');
    }

    /** @dataProvider invalidKeys */
    #[DataProvider('invalidKeys')]
    public function testHasInvalidKeys(mixed $key): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->cache->has($key);
    }

    /** @dataProvider invalidKeys */
    #[DataProvider('invalidKeys')]
    public function testDeleteInvalidKeys(mixed $key): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->cache->delete($key);
    }

    /** @dataProvider invalidKeys */
    #[DataProvider('invalidKeys')]
    public function testGetMultipleInvalidKeys(mixed $key): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->cache->getMultiple(['key1', $key, 'key2']);
    }

    /** @dataProvider invalidKeys */
    #[DataProvider('invalidKeys')]
    public function testDeleteMultipleInvalidKeys(mixed $key): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->cache->deleteMultiple(['key1', $key, 'key2']);
    }

    /**
     * A generator, since an array key cannot be most of these.
     *
     * @dataProvider invalidArrayKeys
     */
    #[DataProvider('invalidArrayKeys')]
    public function testSetMultipleInvalidKeys(mixed $key): void
    {
        $values = (static function () use ($key) {
            yield 'key1' => 'foo';
            yield $key => 'bar';
        })();
        $this->expectException(InvalidArgumentException::class);
        $this->cache->setMultiple($values);
    }

    public function testSetMultipleWithAnInvalidKeyStoresNothing(): void
    {
        try {
            $this->cache->setMultiple(['key1' => 'foo', 'bad:key' => 'bar']);
            $this->fail('no exception');
        } catch (InvalidArgumentException) {
        }
        $this->assertFalse($this->cache->has('key1'));
    }

    public function testNotIterable(): void
    {
        foreach ([fn () => $this->cache->getMultiple('key'), fn () => $this->cache->setMultiple('key'),
                  fn () => $this->cache->deleteMultiple('key')] as $i => $call) {
            try {
                $call();
                $this->fail("call $i: no exception");
            } catch (InvalidArgumentException) {
                $this->addToAssertionCount(1);
            }
        }
    }

    /** @dataProvider invalidTtl */
    #[DataProvider('invalidTtl')]
    public function testSetInvalidTtl(mixed $ttl): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->cache->set('key', 'value', $ttl);
    }

    /** @dataProvider invalidTtl */
    #[DataProvider('invalidTtl')]
    public function testSetMultipleInvalidTtl(mixed $ttl): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->cache->setMultiple(['key' => 'value'], $ttl);
    }

    /** @dataProvider validKeys */
    #[DataProvider('validKeys')]
    public function testSetValidKeys(string $key): void
    {
        $this->cache->set($key, 'foobar');
        $this->assertSame('foobar', $this->cache->get($key));
        $this->cache->setMultiple([$key => 'multi']);
        $this->assertSame([$key => 'multi'], $this->cache->getMultiple([$key]));
        $this->assertTrue($this->cache->has($key));
        $this->cache->deleteMultiple([$key]);
        $this->assertFalse($this->cache->has($key));
    }

    /** @dataProvider validData */
    #[DataProvider('validData')]
    public function testSetValidData(mixed $data): void
    {
        $this->cache->set('key', $data);
        $this->assertEquals($data, $this->cache->get('key', 'default'));
        $this->cache->setMultiple(['key2' => $data]);
        $this->assertEquals(['key2' => $data], $this->cache->getMultiple(['key2'], 'default'));
    }

    public function testDataTypes(): void
    {
        $this->cache->set('s', '5');
        $this->cache->set('i', 5);
        $this->cache->set('f', 1.1);
        $this->cache->set('f2', 1.0);
        $this->cache->set('b', false);
        $this->cache->set('a', ['a' => 'foo', 2 => 'bar']);
        $this->assertSame('5', $this->cache->get('s'));
        $this->assertSame(5, $this->cache->get('i'));
        $this->assertSame(1.1, $this->cache->get('f'));
        $this->assertSame(1.0, $this->cache->get('f2'));
        $this->assertFalse($this->cache->get('b', 'default'), 'a stored false is not the default');
        $this->assertTrue($this->cache->has('b'));
        $this->assertSame(['a' => 'foo', 2 => 'bar'], $this->cache->get('a'));
    }

    public function testObjectDoesNotChangeInCache(): void
    {
        $obj = new \stdClass();
        $obj->foo = 'value';
        $this->cache->set('key', $obj);
        $obj->foo = 'changed';
        $this->assertSame('value', $this->cache->get('key')->foo);
    }

    public function testBinaryData(): void
    {
        $data = '';
        for ($i = 0; $i < 256; $i++) {
            $data .= chr($i);
        }
        $this->cache->set('key', $data);
        $this->assertSame($data, $this->cache->get('key'));
        $this->cache->setMultiple(['key2' => $data]);
        $this->assertSame(['key2' => $data], $this->cache->getMultiple(['key2']));
    }

    public function testValuesAreSerializedUnderTheNamespace(): void
    {
        $this->cache->set('key', ['x' => 1]);
        $gen = ephpm_kv_get(SimpleCache::PREFIX . $this->ns . ':gen');
        $this->assertSame(serialize(['x' => 1]), ephpm_kv_get(SimpleCache::PREFIX . $this->ns . ":$gen:key"));
    }

    /** A value whose class is gone (renamed or removed by a deploy) is a miss, not a __PHP_Incomplete_Class. */
    public function testAValueOfAClassThatIsGoneIsAMiss(): void
    {
        $this->cache->set('key', 'placeholder');
        $gen = ephpm_kv_get(SimpleCache::PREFIX . $this->ns . ':gen');
        $raw = SimpleCache::PREFIX . $this->ns . ":$gen:";
        ephpm_kv_set($raw . 'key', 'O:8:"Gone\\Cls":0:{}');
        ephpm_kv_set($raw . 'nested', 'a:1:{i:0;O:9:"Gone\\Cls":0:{}}');
        $this->assertSame('default', $this->cache->get('key', 'default'));
        $this->assertSame(['key' => 'd', 'nested' => 'd'], $this->cache->getMultiple(['key', 'nested'], 'd'));
        $this->assertInstanceOf(\__PHP_Incomplete_Class::class, @unserialize(ephpm_kv_get($raw . 'key')), 'the stored value names a class that does not exist');
    }

    public function testReservedCharacterInNamespaceIsRefused(): void
    {
        $this->expectException(InvalidArgumentException::class);
        new SimpleCache('a:b');
    }

    public function testKeyTooLongForTheStoreIsAnInvalidArgument(): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->cache->get(str_repeat('a', 70000));
    }

    public function testValueTheStoreRefusesIsAFailedSet(): void
    {
        $this->cache->set('key', 'old');
        $big = random_bytes(2 << 20); // over ephpm.max_value_size (1M by default), incompressible
        $this->assertFalse($this->cache->set('key', $big));
        $this->assertNull($this->cache->get('key'), 'the old value is not served after a failed update');
        $this->assertFalse($this->cache->setMultiple(['key2' => 'small', 'key3' => $big]));
        $this->assertSame('small', $this->cache->get('key2'), 'the others are stored');
        $this->assertFalse($this->cache->has('key3'));
    }

    public function testStoreUnavailableIsACacheException(): void
    {
        // a process of its own, on a server that is not there
        $script = sprintf('require %s; require %s; $c = new %s("x");
            foreach (["get" => fn () => $c->get("k"), "set" => fn () => $c->set("k", 1), "clear" => fn () => $c->clear()] as $op => $f) {
                try { $f(); echo "$op: no exception\n"; }
                catch (\Psr\SimpleCache\CacheException $e) { echo "$op: ", get_class($e), " ", $e->getCode() === \Ephpm\KvException::UNAVAILABLE ? "UNAVAILABLE" : $e->getCode(), "\n"; }
            }',
            var_export(__DIR__ . '/../autoload.php', true), var_export('/usr/share/php/Psr/SimpleCache/autoload.php', true),
            '\\' . SimpleCache::class);
        [, $out, $err] = Processes::run([PHP_BINARY, '-d', 'extension=' . Processes::extension(),
            '-d', 'ephpm.server=unix:///nonexistent/ephpm.sock', '-r', $script]);
        $this->assertSame("get: Ephpm\\Bridge\\Psr\\CacheException UNAVAILABLE\nset: Ephpm\\Bridge\\Psr\\CacheException UNAVAILABLE\nclear: Ephpm\\Bridge\\Psr\\CacheException UNAVAILABLE\n",
            $out, $err);
    }

    /** The store's TTL of this cache's key, in whole seconds (-1: none), whatever the current generation. */
    private function rawTtl(string $key): int
    {
        $gen = ephpm_kv_get(SimpleCache::PREFIX . $this->ns . ':gen') ?? '0';
        $ttl = ephpm_kv_ttl(SimpleCache::PREFIX . $this->ns . ":$gen:$key");

        return $ttl < 0 ? (int) $ttl : (int) ceil($ttl);
    }

    /** Runs $code in a new PHP process with this test's engine settings and $c, a SimpleCache on this namespace. */
    private function runChild(string $code): string
    {
        $script = sprintf('require %s; require %s; $c = new %s(%s); %s',
            var_export(__DIR__ . '/../autoload.php', true), var_export('/usr/share/php/Psr/SimpleCache/autoload.php', true),
            '\\' . SimpleCache::class, var_export($this->ns, true), $code);
        [$rc, $out, $err] = Processes::run(Processes::php('-r', $script));
        $this->assertSame(0, $rc, $out . $err);

        return $out;
    }
}
