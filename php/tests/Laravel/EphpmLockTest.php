<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Laravel;

use Ephpm\Bridge\Tests\Support\Expiry;
use Ephpm\Bridge\Laravel\EphpmLock;
use Ephpm\Bridge\Laravel\EphpmStore;
use Illuminate\Cache\Repository;
use Illuminate\Contracts\Cache\LockTimeoutException;
use PHPUnit\Framework\TestCase;

/**
 * Modelled on Laravel's tests/Integration/Cache/{Memcached,Redis}CacheLockTest
 * (and the lock cases of its other stores'), through Illuminate\Cache\Repository:
 * what those check, on ephpm-kv.
 */
final class EphpmLockTest extends TestCase
{
    private Repository $cache;

    protected function setUp(): void
    {
        ephpm_kv_flush();
        $this->cache = new Repository(new EphpmStore('locktest'));
    }

    public function testLocksCanBeAcquiredAndReleased(): void
    {
        $this->cache->lock('foo')->forceRelease();

        $lock = $this->cache->lock('foo', 10);
        $this->assertInstanceOf(EphpmLock::class, $lock);
        $this->assertTrue($lock->get());
        $this->assertFalse($this->cache->lock('foo', 10)->get());
        $lock->release();

        $lock = $this->cache->lock('foo', 10);
        $this->assertTrue($lock->get());
        $this->assertFalse($this->cache->lock('foo', 10)->get());
        $this->cache->lock('foo')->forceRelease();
        $this->assertTrue($this->cache->lock('foo', 10)->get());
    }

    public function testLockIsStoredUnderTheStorePrefixAndNamespace(): void
    {
        $lock = $this->cache->lock('foo', 10);
        $this->assertTrue($lock->get());
        $this->assertSame($lock->owner(), ephpm_kv_get(EphpmStore::NAMESPACE . 'lock:locktest:foo'));
        $this->assertNull(ephpm_kv_get('foo'));
        // Another prefix is another lock.
        $this->assertTrue((new Repository(new EphpmStore('other')))->lock('foo', 10)->get());
    }

    public function testLockWithoutSecondsNeverExpires(): void
    {
        $this->assertTrue($this->cache->lock('foo')->get());
        $this->assertSame(-1, (int) ephpm_kv_ttl(EphpmStore::NAMESPACE . 'lock:locktest:foo'));
    }

    public function testLockExpiresAfterItsSeconds(): void
    {
        $this->assertTrue($this->cache->lock('foo', 1)->get());
        $ttl = ephpm_kv_ttl(EphpmStore::NAMESPACE . 'lock:locktest:foo');
        $this->assertGreaterThan(0 - Expiry::slack(), $ttl);
        $this->assertLessThanOrEqual(1, $ttl);
        Expiry::waitPast(1, 1.1, fn () => !ephpm_kv_exists(EphpmStore::NAMESPACE . 'lock:locktest:foo'));
        $this->assertTrue($this->cache->lock('foo', 10)->get());
    }

    public function testLocksCanRunCallbacks(): void
    {
        $this->assertSame('taylor', $this->cache->lock('foo', 10)->get(fn () => 'taylor'));
        // get() released it after the callback.
        $this->assertTrue($this->cache->lock('foo', 10)->get());
    }

    public function testGetWithCallbackDoesNotRunItWhenHeldElsewhere(): void
    {
        $this->assertTrue($this->cache->lock('foo', 10)->get());
        $ran = false;
        $this->assertFalse($this->cache->lock('foo', 10)->get(function () use (&$ran) {
            $ran = true;
        }));
        $this->assertFalse($ran);
    }

    public function testLocksCanBlockForSeconds(): void
    {
        $this->assertSame('taylor', $this->cache->lock('foo', 10)->block(1, fn () => 'taylor'));

        $this->cache->lock('foo')->forceRelease();
        $this->assertTrue($this->cache->lock('foo', 10)->block(1));
    }

    public function testBlockWaitsForTheLockToExpire(): void
    {
        $this->assertTrue($this->cache->lock('foo', 1)->get());

        $start = microtime(true);
        $result = $this->cache->lock('foo', 10)->betweenBlockedAttemptsSleepFor(50)->block(3, fn () => 'taylor');
        $waited = microtime(true) - $start;

        $this->assertSame('taylor', $result);
        $this->assertGreaterThan(0.5, $waited, 'block() returned while the first lock was held');
        $this->assertLessThan(2.5, $waited);
    }

    public function testLocksThrowTimeoutIfBlockExpires(): void
    {
        $this->assertTrue($this->cache->lock('foo', 10)->get());

        // (Lock::block() counts whole seconds of time(): it may give up a
        // little before a full second.)
        try {
            $this->cache->lock('foo', 10)->betweenBlockedAttemptsSleepFor(50)->block(1, fn () => $this->fail('callback ran'));
            $this->fail('no LockTimeoutException');
        } catch (LockTimeoutException) {
        }
    }

    public function testLocksWithFailedBlockCallbackAreReleased(): void
    {
        try {
            $this->cache->lock('foo', 10)->block(1, function (): void {
                throw new \RuntimeException('failed');
            });
            $this->fail('no exception');
        } catch (\RuntimeException $e) {
            $this->assertSame('failed', $e->getMessage());
        }

        $this->assertTrue($this->cache->lock('foo', 10)->get());
    }

    public function testReleaseReportsWhetherItReleased(): void
    {
        $lock = $this->cache->lock('foo', 10);
        $this->assertTrue($lock->get());
        $this->assertTrue($lock->release());
        $this->assertFalse($lock->release());
        // The same Lock can be acquired again once released.
        $this->assertTrue($lock->get());
        $this->assertFalse($this->cache->lock('foo', 10)->get());
    }

    public function testReleaseAfterAForceReleaseByAnotherFails(): void
    {
        $owner = $this->cache->lock('foo', 10);
        $this->assertTrue($owner->get());
        $this->cache->lock('foo', 10)->forceRelease();
        $this->assertFalse($owner->release(), 'released a lock it no longer held');

        $next = $this->cache->lock('foo', 10);
        $this->assertTrue($next->get());
        $this->assertFalse($owner->release());
        $this->assertSame($next->owner(), $this->currentOwner($next), "the old owner's release freed the next holder's lock");
    }

    public function testReleaseByAnotherOwnerIsRefused(): void
    {
        $lock = $this->cache->lock('foo', 10);
        $this->assertTrue($lock->get());

        $this->assertFalse($this->cache->lock('foo', 10)->release());
        $this->assertFalse($this->cache->restoreLock('foo', 'someone-else')->release());
        $this->assertFalse($this->cache->lock('foo', 10)->get(), 'the lock was released by a non-owner');
        $this->assertSame($lock->owner(), ephpm_kv_get(EphpmStore::NAMESPACE . 'lock:locktest:foo'));

        $this->assertTrue($lock->release());
    }

    public function testLocksCanBeReleasedUsingOwnerToken(): void
    {
        $firstLock = $this->cache->lock('foo', 10);
        $this->assertTrue($firstLock->get());
        $owner = $firstLock->owner();

        $secondLock = $this->cache->restoreLock('foo', $owner);
        $this->assertSame($owner, $secondLock->owner());
        $this->assertTrue($secondLock->release());

        $this->assertTrue($this->cache->lock('foo')->get());
    }

    public function testOwnerStatusCanBeCheckedAfterRestoringLock(): void
    {
        $firstLock = $this->cache->lock('foo', 10);
        $this->assertTrue($firstLock->get());

        $restored = $this->cache->restoreLock('foo', $firstLock->owner());
        $this->assertTrue($this->isOwned($restored));
        $this->assertFalse($this->isOwned($this->cache->restoreLock('foo', 'other')));
        // A restored lock on a free name owns nothing.
        $this->assertFalse($this->isOwned($this->cache->restoreLock('free', $firstLock->owner())));
    }

    public function testOwnerIsNullOnceReleased(): void
    {
        $lock = $this->cache->lock('foo', 10);
        $this->assertTrue($lock->get());
        $lock->release();
        $this->assertNull($this->currentOwner($lock));
        $this->assertFalse($this->isOwned($lock));
    }

    public function testLocksCanBeForceReleasedWhoeverOwnsThem(): void
    {
        $this->assertTrue($this->cache->lock('foo', 10)->get());
        $this->cache->restoreLock('foo', 'not-the-owner')->forceRelease();
        $this->assertTrue($this->cache->lock('foo', 10)->get());
    }

    /**
     * The overrun: a holder whose TTL ran out releases late, after another
     * has taken the lock. The late release must leave the new holder's lock
     * alone (Laravel's testConcurrent{Memcached,Redis}LocksAreReleasedSafely).
     */
    public function testConcurrentLocksAreReleasedSafely(): void
    {
        $firstLock = $this->cache->lock('foo', 1);
        $this->assertTrue($firstLock->get());
        Expiry::waitPast(1, 1.1, fn () => !ephpm_kv_exists(EphpmStore::NAMESPACE . 'lock:locktest:foo'));

        $secondLock = $this->cache->lock('foo', 10);
        $this->assertTrue($secondLock->get());

        $this->assertFalse($firstLock->release());
        $this->assertFalse($this->cache->lock('foo')->get(), 'a late release freed the next holder\'s lock');
        $this->assertSame($secondLock->owner(), $this->currentOwner($secondLock));
    }

    private function currentOwner(EphpmLock $lock): ?string
    {
        return (fn () => $this->getCurrentOwner())->call($lock);
    }

    private function isOwned(EphpmLock $lock): bool
    {
        return (fn () => $this->isOwnedByCurrentProcess())->call($lock);
    }
}
