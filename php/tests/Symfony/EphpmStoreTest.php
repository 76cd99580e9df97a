<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Symfony;

use Ephpm\Bridge\Symfony\EphpmStore;
use Ephpm\Bridge\Tests\Support\Expiry;
use Ephpm\Bridge\Tests\Support\Processes;
use PHPUnit\Framework\TestCase;
use Symfony\Component\Lock\BlockingSharedLockStoreInterface;
use Symfony\Component\Lock\BlockingStoreInterface;
use Symfony\Component\Lock\Exception\InvalidArgumentException;
use Symfony\Component\Lock\Exception\InvalidTtlException;
use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Exception\LockExpiredException;
use Symfony\Component\Lock\Exception\UnserializableKeyException;
use Symfony\Component\Lock\Key;
use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Lock\PersistingStoreInterface;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * EphpmStore against Debian's symfony/lock 5.4. The first three groups are the
 * checks of Symfony's own store suites (AbstractStoreTestCase,
 * ExpiringStoreTestTrait, BlockingStoreTestTrait; Debian does not ship them,
 * so they are written here from what those check); then the overrun scenario,
 * namespacing, TTL and key validation, and the cross-process checks (server
 * mode, or a named shared segment: skipped where the store is not shared
 * across processes).
 */
final class EphpmStoreTest extends TestCase
{
    /** microseconds: the margin the expiry checks allow (server TTLs are in ms) */
    private const CLOCK_DELAY = 100000;

    private function getStore(float $initialTtl = 300.0): EphpmStore
    {
        return new EphpmStore($initialTtl);
    }

    private function resource(): string
    {
        return uniqid('ephpm-sf-test:', true);
    }

    // --- AbstractStoreTestCase -------------------------------------------

    public function testImplementsTheInterfaces(): void
    {
        $this->assertInstanceOf(PersistingStoreInterface::class, $this->getStore());
        $this->assertInstanceOf(BlockingStoreInterface::class, $this->getStore());
        $this->assertInstanceOf(BlockingSharedLockStoreInterface::class, $this->getStore()); // and so SharedLockStoreInterface
    }

    public function testSave(): void
    {
        $store = $this->getStore();
        $key = new Key($this->resource());

        $this->assertFalse($store->exists($key));
        $store->save($key);
        $this->assertTrue($store->exists($key));
        $store->delete($key);
        $this->assertFalse($store->exists($key));
    }

    public function testSaveWithDifferentResources(): void
    {
        $store = $this->getStore();
        $key1 = new Key($this->resource());
        $key2 = new Key($this->resource());

        $store->save($key1);
        $this->assertTrue($store->exists($key1));
        $this->assertFalse($store->exists($key2));

        $store->save($key2);
        $this->assertTrue($store->exists($key1));
        $this->assertTrue($store->exists($key2));

        $store->delete($key1);
        $this->assertFalse($store->exists($key1));
        $this->assertTrue($store->exists($key2));

        $store->delete($key2);
        $this->assertFalse($store->exists($key1));
        $this->assertFalse($store->exists($key2));
    }

    public function testSaveWithDifferentKeysOnSameResources(): void
    {
        $store = $this->getStore();
        $resource = $this->resource();
        $key1 = new Key($resource);
        $key2 = new Key($resource);

        $store->save($key1);
        $this->assertTrue($store->exists($key1));
        $this->assertFalse($store->exists($key2));

        try {
            $store->save($key2);
            $this->fail('The store must not save a second key on a locked resource');
        } catch (LockConflictedException $e) {
        }
        $this->assertTrue($store->exists($key1));
        $this->assertFalse($store->exists($key2));

        $store->delete($key1);
        $this->assertFalse($store->exists($key1));
        $this->assertFalse($store->exists($key2));

        $store->save($key2);
        $this->assertFalse($store->exists($key1));
        $this->assertTrue($store->exists($key2));

        $store->delete($key2);
        $this->assertFalse($store->exists($key1));
        $this->assertFalse($store->exists($key2));
    }

    public function testSaveTwice(): void
    {
        $store = $this->getStore();
        $key = new Key($this->resource());

        $store->save($key);
        $store->save($key); // ours: renewed, no conflict
        $this->assertTrue($store->exists($key));
        $store->delete($key);
        $this->assertFalse($store->exists($key));
    }

    public function testDeleteIsolated(): void
    {
        $store = $this->getStore();
        $resource = $this->resource();
        $key1 = new Key($resource);
        $key2 = new Key($resource);

        $store->save($key1);
        $store->delete($key2); // not the holder: nothing happens
        $this->assertTrue($store->exists($key1));
        $this->assertFalse($store->exists($key2));
        $store->delete($key1);
        $this->assertFalse($store->exists($key1));
    }

    // --- ExpiringStoreTestTrait ------------------------------------------

    public function testExpiration(): void
    {
        $store = $this->getStore();
        $key = new Key($this->resource());

        $store->save($key);
        $store->putOffExpiration($key, 2 * self::CLOCK_DELAY / 1000000);
        $this->assertTrue($store->exists($key));

        Expiry::waitPast(2 * self::CLOCK_DELAY / 1000000, 3 * self::CLOCK_DELAY / 1000000, fn () => !$store->exists($key));
        $this->assertFalse($store->exists($key));
    }

    public function testAbortAfterExpiration(): void
    {
        $store = $this->getStore();
        $key = new Key($this->resource());

        $store->save($key);
        $this->expectException(LockExpiredException::class);
        $store->putOffExpiration($key, 1 / 1000000);
    }

    public function testRefreshLock(): void
    {
        // the initial TTL is short: the refresh is what keeps it, then it expires
        if (Expiry::onEtcd()) {
            $this->markTestSkipped('on etcd: its point is a 0.2 s TTL outlived by a 0.4 s refresh, and etcd leases are whole seconds (testExpiration and the overrun tests run there)');
        }
        $store = $this->getStore(2 * self::CLOCK_DELAY / 1000000);
        $key = new Key($this->resource());

        $store->save($key);
        $store->putOffExpiration($key, 4 * self::CLOCK_DELAY / 1000000);
        usleep(3 * self::CLOCK_DELAY);
        $this->assertTrue($store->exists($key), 'still held: the refresh outlived the initial TTL');

        usleep(2 * self::CLOCK_DELAY);
        $this->assertFalse($store->exists($key));
    }

    public function testSetExpiration(): void
    {
        $store = $this->getStore();
        $key = new Key($this->resource());

        $store->save($key);
        $store->putOffExpiration($key, 1);
        $this->assertGreaterThanOrEqual(0, $key->getRemainingLifetime());
        $this->assertLessThanOrEqual(1, $key->getRemainingLifetime());
        $store->delete($key);
    }

    public function testExpiredLockCleaned(): void
    {
        $store = $this->getStore();
        $resource = $this->resource();
        $key1 = new Key($resource);
        $key2 = new Key($resource);

        $key1->reduceLifetime(0);
        $this->assertTrue($key1->isExpired());
        try {
            $store->save($key1);
            $this->fail('The store must not save an expired key');
        } catch (LockExpiredException $e) {
        }
        $this->assertFalse($store->exists($key1), 'an expired key is deleted, not left to its TTL');

        $store->save($key2);
        $this->assertTrue($store->exists($key2));
        $store->delete($key2);
    }

    // --- BlockingStoreTestTrait ------------------------------------------

    /** In one process: waitAndSave returns once the holder's TTL runs out. */
    public function testWaitAndSaveWaitsForTheHolder(): void
    {
        $resource = $this->resource();
        $holder = new Key($resource);
        $this->getStore(0.3)->save($holder);

        $store = $this->getStore();
        $waiter = new Key($resource);
        try {
            $store->save($waiter);
            $this->fail('The store saves a locked key.');
        } catch (LockConflictedException $e) {
        }

        $start = microtime(true);
        $store->waitAndSave($waiter); // no LockExpiredException though it waited
        $waited = microtime(true) - $start;
        $this->assertGreaterThan(0.2, $waited);
        $this->assertLessThan(2.0, $waited);
        $this->assertTrue($store->exists($waiter));
        $this->assertFalse($store->exists($holder));
        $store->delete($waiter);
    }

    /** A wait longer than the store's initial TTL must not leave the Key expired. */
    public function testWaitLongerThanTheInitialTtl(): void
    {
        $resource = $this->resource();
        $this->getStore(0.5)->save(new Key($resource));

        $store = $this->getStore(0.3);
        $key = new Key($resource);
        $store->waitAndSave($key);
        $this->assertFalse($key->isExpired());
        $this->assertTrue($store->exists($key));
        $store->delete($key);
    }

    /** Symfony's testBlockingLocks, with a second process instead of pcntl_fork. */
    public function testBlockingLocks(): void
    {
        $this->requireSharedStore();
        $resource = $this->resource();
        [$child, $out] = $this->child('hold', $resource, (string) (3 * self::CLOCK_DELAY / 1000000));
        $this->assertSame("held\n", fgets($out));

        $store = $this->getStore();
        $key = new Key($resource);
        try {
            $store->save($key);
            $this->fail('The store saves a locked key.');
        } catch (LockConflictedException $e) {
        }

        $start = microtime(true);
        $store->waitAndSave($key); // blocked by the child until it releases
        $this->assertGreaterThan(self::CLOCK_DELAY / 1000000, microtime(true) - $start);
        $this->assertTrue($store->exists($key));
        $store->delete($key);
        $this->assertSame("released\n", fgets($out));
        $this->assertSame(0, proc_close($child), 'the child could not lock the resource');
    }

    // --- the overrun scenario ----------------------------------------------

    /** A holder past its TTL releases late: the next holder keeps the lock. */
    public function testOverrunHolderDoesNotReleaseTheNextHoldersLock(): void
    {
        $resource = $this->resource();
        $a = new Key($resource);
        $b = new Key($resource);
        $c = new Key($resource);
        $short = $this->getStore(0.1);
        $store = $this->getStore();

        $short->save($a);
        Expiry::waitPast(0.1, 2 * self::CLOCK_DELAY / 1000000, fn () => !ephpm_kv_exists('sf-lock:' . $resource)); // A overruns its 0.1 s
        $store->save($b);              // B takes the expired lock

        $short->delete($a);            // A releases late
        $this->assertFalse($short->exists($a));
        $this->assertTrue($store->exists($b), "A's late release removed B's lock");
        try {
            $store->save($c);
            $this->fail('C got the lock B holds');
        } catch (LockConflictedException $e) {
        }

        $a->resetLifetime();           // as Lock::refresh() does
        try {                          // nor can A extend or re-take it
            $short->putOffExpiration($a, 30);
            $this->fail("A extended B's lock");
        } catch (LockConflictedException $e) {
        }
        try {
            $short->save($a);
            $this->fail("A re-took B's lock");
        } catch (LockConflictedException $e) {
        }
        $this->assertTrue($store->exists($b));
        $this->assertGreaterThan(200, ephpm_kv_ttl('sf-lock:' . $resource), "B's TTL was changed by A");
        $store->delete($b);
    }

    /** The same through Symfony's LockFactory and Lock. */
    public function testOverrunThroughLockFactory(): void
    {
        $factory = new LockFactory($this->getStore());
        $resource = $this->resource();

        $lockA = $factory->createLock($resource, 0.1, false);
        $this->assertTrue($lockA->acquire());
        Expiry::waitPast(0.1, 2 * self::CLOCK_DELAY / 1000000, fn () => !ephpm_kv_exists('sf-lock:' . $resource));
        $this->assertTrue($lockA->isExpired());

        $lockB = $factory->createLock($resource, 30, false);
        $this->assertTrue($lockB->acquire());

        $lockA->release(); // late: must leave B's lock alone (and not throw: A's is gone)
        $this->assertTrue($lockB->isAcquired());
        $this->assertFalse($factory->createLock($resource, 30, false)->acquire(), "C got B's lock after A's late release");
        $lockB->release();
        $this->assertFalse($lockB->isAcquired());
    }

    // --- namespacing, validation ---------------------------------------------

    public function testKeysAreNamespaced(): void
    {
        $resource = $this->resource();
        $key = new Key($resource);
        $store = $this->getStore();

        ephpm_kv_set($resource, 'raw'); // a raw key of the same name is another key
        $store->save($key);
        $this->assertSame('raw', ephpm_kv_get($resource));
        $this->assertSame($key->getState(EphpmStore::class), ephpm_kv_get('sf-lock:' . $resource));

        $other = new EphpmStore(300, 'other:');
        $this->assertFalse($other->exists($key));
        $other->save(new Key($resource)); // another namespace: no conflict
        $store->delete($key);
        $this->assertNull(ephpm_kv_get('sf-lock:' . $resource));
        $this->assertSame('raw', ephpm_kv_get($resource));
        ephpm_kv_del($resource);
        ephpm_kv_del('other:' . $resource);
    }

    public function testStoredTtlFollowsTheStore(): void
    {
        $resource = $this->resource();
        $key = new Key($resource);
        $store = $this->getStore(20);
        $store->save($key);
        $ttl = ephpm_kv_ttl('sf-lock:' . $resource);
        $this->assertGreaterThan(19 - Expiry::slack(), $ttl);
        $this->assertLessThanOrEqual(20, $ttl);
        $store->putOffExpiration($key, 40);
        $this->assertGreaterThan(39 - Expiry::slack(), ephpm_kv_ttl('sf-lock:' . $resource));
        $store->delete($key);
    }

    public static function invalidTtls(): array
    {
        return [[0.0], [-1.0], [NAN], [INF], [3153600001.0]];
    }

    /** @dataProvider invalidTtls */
    #[DataProvider('invalidTtls')]
    public function testInvalidTtl(float $ttl): void
    {
        $store = $this->getStore();
        $key = new Key($this->resource());
        $store->save($key);
        try {
            $store->putOffExpiration($key, $ttl);
            $this->fail('putOffExpiration accepted a TTL of ' . $ttl);
        } catch (InvalidTtlException $e) {
        }
        $store->delete($key);

        $this->expectException(InvalidTtlException::class);
        new EphpmStore($ttl);
    }

    public function testKeyTheEngineRefusesIsAnInvalidArgument(): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->getStore()->save(new Key(str_repeat('k', 70000)));
    }

    // --- SharedLockStoreTestTrait -------------------------------------------

    // Symfony's SharedLockStoreTestTrait (not shipped by Debian either): read
    // locks shared among Keys, a write lock excluding them, promotion and
    // demotion; the state of the holders checked after every step.

    public function testSharedLockReadFirst(): void
    {
        $store = $this->getStore();
        $resource = $this->resource();
        [$key1, $key2, $key3] = [new Key($resource), new Key($resource), new Key($resource)];

        $store->saveRead($key1);
        $this->assertHolders($store, [true, false, false], [$key1, $key2, $key3]);
        $store->saveRead($key2);
        $this->assertHolders($store, [true, true, false], [$key1, $key2, $key3], 'two readers at once');

        try {
            $store->save($key3);
            $this->fail('a writer must not get a resource others read');
        } catch (LockConflictedException $e) {
        }
        $this->assertHolders($store, [true, true, false], [$key1, $key2, $key3], 'the refused writer changed nothing');

        $store->delete($key1);
        $this->assertHolders($store, [false, true, false], [$key1, $key2, $key3]);
        $store->delete($key2);
        $this->assertHolders($store, [false, false, false], [$key1, $key2, $key3]);

        $store->save($key3);
        $this->assertHolders($store, [false, false, true], [$key1, $key2, $key3], 'the last reader gone, the writer gets it');
        $store->delete($key3);
        $this->assertHolders($store, [false, false, false], [$key1, $key2, $key3]);
    }

    public function testSharedLockWriteFirst(): void
    {
        $store = $this->getStore();
        $resource = $this->resource();
        [$key1, $key2] = [new Key($resource), new Key($resource)];

        $store->save($key1);
        $this->assertHolders($store, [true, false], [$key1, $key2]);
        try {
            $store->saveRead($key2);
            $this->fail('a reader must not get a resource someone writes');
        } catch (LockConflictedException $e) {
        }
        $this->assertHolders($store, [true, false], [$key1, $key2], 'the refused reader changed nothing');

        $store->delete($key1);
        $this->assertHolders($store, [false, false], [$key1, $key2]);
        $store->save($key2);
        $this->assertHolders($store, [false, true], [$key1, $key2]);
        $store->delete($key2);
        $this->assertHolders($store, [false, false], [$key1, $key2]);
    }

    public function testSharedLockPromote(): void
    {
        $store = $this->getStore();
        $resource = $this->resource();
        [$key1, $key2] = [new Key($resource), new Key($resource)];

        $store->saveRead($key1);
        $store->saveRead($key2);
        $this->assertHolders($store, [true, true], [$key1, $key2]);
        try {
            $store->save($key1);
            $this->fail('a reader must not become the writer while another reads');
        } catch (LockConflictedException $e) {
        }
        $this->assertHolders($store, [true, true], [$key1, $key2], 'the refused promotion left both reading');
        $store->delete($key1);
        $store->delete($key2);
    }

    public function testSharedLockPromoteAllowed(): void
    {
        $store = $this->getStore();
        $resource = $this->resource();
        [$key1, $key2] = [new Key($resource), new Key($resource)];

        $store->saveRead($key1);
        $store->save($key1); // the only reader becomes the writer
        try {
            $store->saveRead($key2);
            $this->fail('a reader must not get a resource someone writes');
        } catch (LockConflictedException $e) {
        }
        $this->assertHolders($store, [true, false], [$key1, $key2]);

        $store->delete($key1);
        $store->saveRead($key2);
        $this->assertHolders($store, [false, true], [$key1, $key2]);
        $store->delete($key2);
    }

    public function testSharedLockDemote(): void
    {
        $store = $this->getStore();
        $resource = $this->resource();
        [$key1, $key2, $key3] = [new Key($resource), new Key($resource), new Key($resource)];

        $store->save($key1);
        $store->saveRead($key1); // the writer becomes a reader
        $store->saveRead($key2);
        $this->assertHolders($store, [true, true], [$key1, $key2], 'the demoted writer reads beside another reader');
        try {
            $store->save($key3);
            $this->fail('a writer must not get a resource others read');
        } catch (LockConflictedException $e) {
        }
        $store->delete($key1);
        $store->delete($key2);
        $this->assertHolders($store, [false, false, false], [$key1, $key2, $key3]);
    }

    // --- read locks: leases ----------------------------------------------------

    public function testSaveReadTwiceRenews(): void
    {
        $store = $this->getStore();
        $resource = $this->resource();
        [$key1, $key2] = [new Key($resource), new Key($resource)];

        $store->saveRead($key1);
        $store->saveRead($key1);
        $this->assertSame(1, \Ephpm\Semaphore::holders('sf-lock:' . $resource), 'the same reader, not a second one');
        $store->saveRead($key2);
        $this->assertSame(2, \Ephpm\Semaphore::holders('sf-lock:' . $resource));
        $store->delete($key1);
        $store->delete($key2);
        $this->assertFalse(ephpm_kv_exists('sf-lock:' . $resource), 'no reader left, no key left');
    }

    /** Each reader has its own lease: one that is not refreshed runs out, the refreshed one stays. */
    public function testReadLeaseExpiresUnlessRefreshed(): void
    {
        $store = $this->getStore(2 * self::CLOCK_DELAY / 1000000);
        $resource = $this->resource();
        [$key1, $key2] = [new Key($resource), new Key($resource)];

        $store->saveRead($key1);
        $store->saveRead($key2);
        $store->putOffExpiration($key2, 30);
        // until the store dropped it (on etcd a lease outlives its TTL by up to a second)
        Expiry::waitPast(2 * self::CLOCK_DELAY / 1000000, 3 * self::CLOCK_DELAY / 1000000, fn () => \Ephpm\Semaphore::holders('sf-lock:' . $resource) === 1);
        $this->assertHolders($store, [false, true], [$key1, $key2], 'the first reader ran out alone');
        $this->assertGreaterThan(10, ephpm_kv_ttl('sf-lock:' . $resource), 'the refresh set the lease to 30 s, not the initial 0.2 s');
        try {
            $store->putOffExpiration($key1, 30);
            $this->fail('a reader whose lease ran out is not re-taken by a refresh');
        } catch (LockConflictedException $e) {
        }
        $store->delete($key2);
        $this->assertFalse($store->exists($key2));
    }

    /** A reader that overran its lease cannot release the writer that came next. */
    public function testOverrunReaderDoesNotReleaseTheWriter(): void
    {
        $store = $this->getStore(2 * self::CLOCK_DELAY / 1000000);
        $resource = $this->resource();
        [$reader, $writer] = [new Key($resource), new Key($resource)];

        $store->saveRead($reader);
        Expiry::waitPast(2 * self::CLOCK_DELAY / 1000000, 3 * self::CLOCK_DELAY / 1000000, fn () => !ephpm_kv_exists('sf-lock:' . $resource));
        $this->getStore()->save($writer);
        $store->delete($reader);
        $this->assertTrue($store->exists($writer), "the late reader's release removed the writer's lock");
        $this->assertFalse($store->exists($reader));
        $store->delete($writer);
    }

    /** A Key holding a read lock (a lease of this process) cannot be serialized; one holding the write lock can. */
    public function testReadKeyIsUnserializable(): void
    {
        $store = $this->getStore();
        $key = new Key($this->resource());
        $store->save($key);
        $this->assertIsString(serialize($key));
        $store->saveRead($key);
        $this->expectException(UnserializableKeyException::class);
        serialize($key);
    }

    /** LockFactory: acquireRead shares, a blocking acquireRead waits for the writer's TTL to run out. */
    public function testLockFactoryReadLocks(): void
    {
        $factory = new LockFactory($this->getStore());
        $resource = $this->resource();
        $r1 = $factory->createLock($resource, 30);
        $r2 = $factory->createLock($resource, 30);
        $w = $factory->createLock($resource, 30);
        $this->assertTrue($r1->acquireRead());
        $this->assertTrue($r2->acquireRead());
        $this->assertFalse($w->acquire(), 'readers hold it');
        $r1->release();
        $r2->release();
        $this->assertTrue($w->acquire());
        $w->release();

        $writer = $factory->createLock($resource, 0.3, false);
        $this->assertTrue($writer->acquire());
        $reader = $factory->createLock($resource, 30);
        $start = microtime(true);
        $this->assertTrue($reader->acquireRead(true)); // waitAndSaveRead
        $this->assertGreaterThan(0.2, microtime(true) - $start, 'waited for the writer');
        $this->assertTrue($reader->isAcquired());
        $reader->release();
    }

    /**
     * @param list<bool> $want whether each of $keys holds the resource (read or write)
     * @param list<Key>  $keys
     */
    private function assertHolders(EphpmStore $store, array $want, array $keys, string $message = ''): void
    {
        $this->assertSame($want, array_map(fn (Key $k) => $store->exists($k), $keys), $message);
    }

    // --- across processes ------------------------------------------------------

    /** The token lives in the Key: a serialized Key owns the lock in another process. */
    public function testSerializedKeyOwnsTheLockInAnotherProcess(): void
    {
        $this->requireSharedStore();
        $store = $this->getStore();
        $key = new Key($this->resource());
        $store->save($key);

        [$child, $out] = $this->child('key', base64_encode(serialize($key)));
        $this->assertSame("exists\n", fgets($out));
        $this->assertSame(0, proc_close($child));
        $this->assertFalse($store->exists($key), 'the other process released it with the same token');

        [$child, $out] = $this->child('key', base64_encode(serialize(new Key((string) $key))));
        $this->assertSame("absent\n", fgets($out), 'another Key of the resource does not own it');
        proc_close($child);
    }

    /** The overrun across processes: a holder in another process releases late. */
    public function testOverrunAcrossProcesses(): void
    {
        $this->requireSharedStore();
        if (Expiry::onEtcd()) {
            $this->markTestSkipped('on etcd: the child holds a 0.2 s lock and releases it 0.6 s later, before a whole-second lease runs out (testOverrunThroughLockFactory runs there, and Laravel\'s cross-process overrun)');
        }
        $resource = $this->resource();
        [$child, $out] = $this->child('overrun', $resource);
        $this->assertSame("held\n", fgets($out));

        $factory = new LockFactory($this->getStore());
        $lock = $factory->createLock($resource, 30, false);
        $start = microtime(true);
        $this->assertTrue($lock->acquire(true)); // free once the child's 0.2 s ran out
        $this->assertLessThan(0.6, microtime(true) - $start, 'acquired only after the late release: the TTL did not free it');

        $this->assertSame("released late\n", fgets($out));
        $this->assertSame(0, proc_close($child));
        $this->assertTrue($lock->isAcquired(), "the other process's late release removed this lock");
        $this->assertFalse($factory->createLock($resource, 30, false)->acquire());
        $lock->release();
    }

    /** LockFactory blocking locks in three processes protect a counter: it ends exact. */
    public function testLockFactoryCounterAcrossProcesses(): void
    {
        $this->requireSharedStore();
        $resource = $this->resource();
        $counter = $resource . ':counter';
        $children = [];
        for ($i = 0; $i < 3; $i++) {
            $children[] = $this->child('count', $resource, $counter, '40');
        }
        foreach ($children as [$child, $out]) {
            $this->assertSame("done\n", stream_get_contents($out));
            $this->assertSame(0, proc_close($child));
        }
        $this->assertSame('120', ephpm_kv_get($counter));
        ephpm_kv_del($counter);
    }

    /** Read locks in two processes share the resource and keep a writer out until both are released. */
    public function testReadersAndWriterAcrossProcesses(): void
    {
        $this->requireSharedStore();
        $store = $this->getStore();
        $resource = $this->resource();
        [$child, $out] = $this->child('read', $resource, '30', '0.5');
        $this->assertSame("reading\n", fgets($out));

        $reader = new Key($resource);
        $writer = new Key($resource);
        $store->saveRead($reader); // beside the other process's reader
        $this->assertSame(2, \Ephpm\Semaphore::holders('sf-lock:' . $resource));
        try {
            $store->save($writer);
            $this->fail('a writer must not get a resource two processes read');
        } catch (LockConflictedException $e) {
        }
        $this->assertSame("released\n", fgets($out));
        $this->assertSame(0, proc_close($child));
        try {
            $store->save($writer);
            $this->fail('this process still reads');
        } catch (LockConflictedException $e) {
        }
        $store->delete($reader);
        $store->save($writer);

        [$child, $out] = $this->child('read', $resource, '30', '0');
        $this->assertSame("conflict\n", fgets($out), "the other process's reader is refused while this one writes");
        $this->assertSame(0, proc_close($child));
        $this->assertTrue($store->exists($writer));
        $store->delete($writer);
    }

    /** A reader SIGKILLed while reading keeps the writer out for its own TTL only. */
    public function testKilledReaderHoldsTheWriterForItsTtlOnly(): void
    {
        $this->requireSharedStore();
        $store = $this->getStore();
        $resource = $this->resource();
        [$child, $out] = $this->child('read', $resource, '1', '60');
        $this->assertSame("reading\n", fgets($out));
        proc_terminate($child, 9);
        proc_close($child);

        $writer = new Key($resource);
        try {
            $store->save($writer);
            $this->fail("a killed reader's lease still holds until its TTL");
        } catch (LockConflictedException $e) {
        }
        Expiry::waitPast(1, 1.2, fn () => !ephpm_kv_exists('sf-lock:' . $resource));
        $store->save($writer);
        $this->assertTrue($store->exists($writer));
        $store->delete($writer);
    }

    /**
     * The lock's TTL (1 s) bounds a killed reader, not the store's initial
     * 300 s its lease was taken for before the LockFactory refreshed it
     * (etcd kept the name for the 300 s).
     */
    public function testKilledReaderRefreshedShorterHoldsTheWriterForItsTtlOnly(): void
    {
        $this->requireSharedStore();
        $store = $this->getStore();
        $resource = $this->resource();
        [$child, $out] = $this->child('read-lock', $resource, '1', '60');
        $this->assertSame("reading\n", fgets($out));
        proc_terminate($child, 9);
        proc_close($child);

        $writer = new Key($resource);
        Expiry::waitPast(1, 1.5, fn () => !ephpm_kv_exists('sf-lock:' . $resource));
        $store->save($writer);
        $this->assertTrue($store->exists($writer));
        $store->delete($writer);
    }

    private function requireSharedStore(): void
    {
        $reason = Processes::unsharedReason();
        if ($reason !== null) {
            $this->markTestSkipped($reason);
        }
    }

    /** @return array{resource, resource} the process and its stdout */
    private function child(string ...$args): array
    {
        $proc = proc_open(Processes::php(__DIR__ . '/child.php', ...$args), [1 => ['pipe', 'w'], 2 => STDERR], $pipes);
        $this->assertIsResource($proc);

        return [$proc, $pipes[1]];
    }
}
