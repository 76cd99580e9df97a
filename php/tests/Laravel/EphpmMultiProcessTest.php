<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Laravel;

use Ephpm\Bridge\Laravel\EphpmStore;
use Ephpm\Bridge\Tests\Support\Processes;
use Illuminate\Cache\Repository;
use PHPUnit\Framework\TestCase;

/**
 * Several processes at once through Laravel's own Lock and Repository: a
 * counter updated by get-then-put under Cache::lock()->block() ends exact,
 * of concurrent Repository::add() calls exactly one wins, and a holder that
 * overran its TTL and releases late leaves the next holder's lock alone.
 * Runs where processes share a store: server mode and a named segment.
 */
final class EphpmMultiProcessTest extends TestCase
{
    private const WORKER = __DIR__ . '/worker.php';

    private Repository $cache;

    protected function setUp(): void
    {
        $reason = Processes::unsharedReason();
        if ($reason !== null) {
            $this->markTestSkipped($reason);
        }
        ephpm_kv_flush();
        $this->cache = new Repository(new EphpmStore('multi'));
    }

    public function testCounterUnderBlockingLockEndsExact(): void
    {
        $workers = 4;
        $each = 150;
        $results = Processes::runAll(array_fill(0, $workers, Processes::php(self::WORKER, 'counter', (string) $each)));
        foreach ($results as [$code, $out, $err]) {
            $this->assertSame(0, $code, "worker failed: $out $err");
        }
        $this->assertEquals($workers * $each, $this->cache->get('n'));
        $this->assertTrue($this->cache->lock('counter', 10)->get(), 'the lock was left held');
    }

    public function testConcurrentAddHasExactlyOneWinner(): void
    {
        for ($round = 0; $round < 5; $round++) {
            $results = Processes::runAll(array_fill(0, 4, Processes::php(self::WORKER, 'add', "race$round")));
            $wins = 0;
            foreach ($results as [$code, $out, $err]) {
                $this->assertSame(0, $code, "worker failed: $out $err");
                $wins += (int) $out;
            }
            $this->assertSame(1, $wins, "round $round");
            $this->assertNotNull($this->cache->get("race$round"));
        }
    }

    public function testLateReleaseByAnOverrunHolderLeavesTheNextHoldersLock(): void
    {
        $proc = proc_open(Processes::php(self::WORKER, 'overrun'), [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        $this->assertIsResource($proc);
        try {
            // (stderr is read only on failure: reading it waits for the worker's exit)
            $line = fgets($pipes[1]);
            $line === "acquired\n" || $this->fail('worker: ' . $line . stream_get_contents($pipes[2]));

            // Held by the worker until its 1 s TTL runs out.
            $lock = $this->cache->lock('overrun', 30)->betweenBlockedAttemptsSleepFor(20);
            $this->assertFalse($lock->get());
            $this->assertTrue($lock->block(5));

            // The worker wakes past its TTL and releases.
            $line = fgets($pipes[1]);
            $line === "refused\n" || $this->fail('worker\'s late release: ' . $line . stream_get_contents($pipes[2]));
        } finally {
            fclose($pipes[1]);
            fclose($pipes[2]);
            $this->assertSame(0, proc_close($proc));
        }
        $this->assertFalse($this->cache->lock('overrun', 30)->get(), 'the late release freed our lock');
        $this->assertTrue($lock->release());
    }

    /**
     * A release must be one step: a holder paused between reading the owner
     * and deleting (MemcachedLock's release: get, compare, then delete) can
     * delete a lock that expired and was taken meanwhile. The worker's lock
     * pauses after any owner read its release makes; its release, at 0.5 s
     * of a 1 s TTL, must leave the lock we take at 1 s alone.
     */
    public function testReleaseIsNotAReadThenADelete(): void
    {
        $proc = proc_open(Processes::php(self::WORKER, 'paused'), [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        $this->assertIsResource($proc);
        try {
            $line = fgets($pipes[1]);
            $line === "acquired\n" || $this->fail('worker: ' . $line . stream_get_contents($pipes[2]));

            $lock = $this->cache->lock('paused', 30)->betweenBlockedAttemptsSleepFor(20);
            $this->assertTrue($lock->block(5));

            $line = fgets($pipes[1]);
            $this->assertContains($line, ["released\n", "refused\n"], 'worker: ' . $line . stream_get_contents($pipes[2]));
        } finally {
            fclose($pipes[1]);
            fclose($pipes[2]);
            $this->assertSame(0, proc_close($proc));
        }
        $this->assertFalse($this->cache->lock('paused', 30)->get(), 'the paused release freed our lock');
        $this->assertTrue($lock->release());
    }
}
