<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Laravel;

use Ephpm\Bridge\Laravel\EphpmJob;
use Ephpm\Bridge\Laravel\EphpmQueue;
use Ephpm\Bridge\Tests\Support\Processes;
use Ephpm\Queue;
use Illuminate\Contracts\Bus\Dispatcher;
use Illuminate\Contracts\Queue\Job as JobContract;
use Illuminate\Contracts\Queue\Queue as QueueContract;
use PHPUnit\Framework\TestCase;

/**
 * The 'ephpm' queue driver through Laravel's QueueManager and Laravel's own
 * worker (`php artisan queue:work`, Illuminate\Queue\Console\WorkCommand in
 * a Console Application: QueueApp): jobs are handled once each, failures are
 * retried with their attempts counted and end in failed() after --tries,
 * backoff and delays hold a job back, and a job a worker took and never
 * finished comes back after retry_after. The worker-process test runs where
 * processes share a store (server mode, a named segment).
 */
final class EphpmQueueTest extends TestCase
{
    protected function setUp(): void
    {
        require_once 'Illuminate/autoload.php'; // the whole framework: Queue, Bus, Events, Console
        ephpm_kv_flush();
    }

    private function connection(QueueApp $app): EphpmQueue
    {
        $queue = $app['queue']->connection('ephpm');
        $this->assertInstanceOf(EphpmQueue::class, $queue);

        return $queue;
    }

    public function testDriverIsRegisteredAndMapsQueueNames(): void
    {
        $app = QueueApp::create(['retry_after' => 7, 'max_attempts' => 3]);
        $queue = $this->connection($app);
        $this->assertInstanceOf(QueueContract::class, $queue);
        $this->assertSame('ephpm', $queue->getConnectionName());

        $id = $queue->push(new RecordingJob(1));
        $this->assertIsString($id);
        $queue->push(new RecordingJob(2), '', 'emails');
        $this->assertSame(1, $queue->size());
        $this->assertSame(1, $queue->size('emails'));
        $this->assertSame(0, $queue->size('other'));

        // one Ephpm\Queue per Laravel queue, under the driver's namespace,
        // with retry_after as its visibility and max_attempts as its limit
        $store = $queue->store();
        $this->assertSame('ephpm:laravel:queue:default', $store->name);
        $this->assertEquals(7.0, $store->visibility);
        $this->assertSame(3, $store->maxAttempts);
        $this->assertSame(1, (new Queue('ephpm:laravel:queue:emails'))->size());

        // Laravel's own JSON payload, stored as it is
        $job = $queue->pop();
        $this->assertInstanceOf(EphpmJob::class, $job);
        $this->assertInstanceOf(JobContract::class, $job);
        $this->assertSame($id, $job->getJobId());
        $this->assertSame(1, $job->attempts());
        $this->assertSame('default', $job->getQueue());
        $this->assertSame('ephpm', $job->getConnectionName());
        $payload = json_decode($job->getRawBody(), true);
        $this->assertSame(RecordingJob::class, $payload['displayName']);
        $this->assertSame('Illuminate\Queue\CallQueuedHandler@call', $payload['job']);
        $this->assertSame(RecordingJob::class, $job->resolveName());
        $this->assertArrayHasKey('uuid', $payload);
        $this->assertSame($payload['uuid'], $job->uuid());

        $this->assertNull($queue->pop(), 'a popped job is invisible to the next pop');
        $this->assertSame(1, $queue->size(), 'and still counted until deleted');
        $job->delete();
        $this->assertTrue($job->isDeleted());
        $this->assertSame(0, $queue->size());
    }

    public function testDriverIsRegisteredWhenTheQueueManagerWasResolvedFirst(): void
    {
        $app = QueueApp::create([], true);
        $this->connection($app)->push(new RecordingJob(1));
        [$code] = $app->work(['--stop-when-empty' => true]);
        $this->assertSame(0, $code);
        $this->assertSame(1, RecordingJob::record(1)['done']);
    }

    public function testConnectorDefaults(): void
    {
        $app = QueueApp::create();
        $queue = $this->connection($app);
        $this->assertEquals(90.0, $queue->store()->visibility);
        $this->assertSame(EphpmQueue::DEFAULT_MAX_ATTEMPTS, $queue->store()->maxAttempts);
    }

    public function testWorkerHandlesEachJobOnce(): void
    {
        $app = QueueApp::create();
        $queue = $this->connection($app);
        for ($n = 1; $n <= 5; $n++) {
            $queue->push(new RecordingJob($n));
        }
        $this->assertSame(5, $queue->size());

        [$code, $out] = $app->work(['--stop-when-empty' => true]);
        $this->assertSame(0, $code, $out);
        for ($n = 1; $n <= 5; $n++) {
            $this->assertSame(['calls' => 1, 'done' => 1, 'attempts' => 1, 'failed' => 0], RecordingJob::record($n), "job $n");
        }
        $this->assertSame(0, $queue->size());
        $this->assertSame([], $app->exceptions()->reported);
        $this->assertStringContainsString(RecordingJob::class, $out);
    }

    public function testOnceHandlesOneJob(): void
    {
        $app = QueueApp::create();
        $queue = $this->connection($app);
        $queue->push(new RecordingJob(1));
        $queue->push(new RecordingJob(2));

        [$code, $out] = $app->work(['--once' => true]);
        $this->assertSame(0, $code, $out);
        $this->assertSame(1, RecordingJob::record(1)['done'], 'the oldest first');
        $this->assertSame(0, RecordingJob::record(2)['calls']);
        $this->assertSame(1, $queue->size());
    }

    public function testBusDispatchOnTheConnection(): void
    {
        $app = QueueApp::create();
        $app[Dispatcher::class]->dispatch((new RecordingJob(1))->onConnection('ephpm')->onQueue('mail'));
        $this->assertSame(1, $this->connection($app)->size('mail'));

        [$code] = $app->work(['--stop-when-empty' => true]);
        $this->assertSame(0, $code);
        $this->assertSame(0, RecordingJob::record(1)['calls'], 'queue:work works the connection\'s queue, not mail');

        [$code] = $app->work(['--stop-when-empty' => true, '--queue' => 'high,mail']);
        $this->assertSame(0, $code);
        $this->assertSame(1, RecordingJob::record(1)['done']);
        $this->assertSame(0, $this->connection($app)->size('mail'));
    }

    public function testFailingJobIsRetriedWithItsAttemptsCounted(): void
    {
        $app = QueueApp::create();
        $queue = $this->connection($app);
        $queue->push(new RecordingJob(1, 2)); // fails on attempts 1 and 2

        [$code, $out] = $app->work(['--stop-when-empty' => true, '--tries' => '3']);
        $this->assertSame(0, $code, $out);
        $this->assertSame(['calls' => 3, 'done' => 1, 'attempts' => 3, 'failed' => 0], RecordingJob::record(1));
        $this->assertCount(2, $app->exceptions()->reported);
        $this->assertSame('job 1 fails on attempt 2', $app->exceptions()->reported[1]->getMessage());
        $this->assertSame([], $app->failed);
        $this->assertSame(0, $queue->size());
    }

    public function testJobFailsAfterItsTries(): void
    {
        $app = QueueApp::create();
        $queue = $this->connection($app);
        $queue->push(new RecordingJob(1, 100));

        [$code, $out] = $app->work(['--stop-when-empty' => true, '--tries' => '2']);
        $this->assertSame(0, $code, $out);
        $this->assertSame(['calls' => 2, 'done' => 0, 'attempts' => 2, 'failed' => 1], RecordingJob::record(1));
        $this->assertCount(1, $app->failed, 'one JobFailed event');
        $this->assertSame(2, $app->failed[0]->job->attempts());
        $this->assertSame(0, $queue->size(), 'a failed job is deleted');
        $this->assertSame([], $queue->store()->dead(), 'by Laravel, not parked by the engine');
    }

    public function testBackoffHoldsTheRetryBack(): void
    {
        $app = QueueApp::create();
        $queue = $this->connection($app);
        $queue->push(new RecordingJob(1, 1));

        $start = microtime(true); // before the release: its backoff ends after $start + 1
        [$code] = $app->work(['--stop-when-empty' => true, '--tries' => '2', '--backoff' => '1']);
        $this->assertSame(0, $code);
        $failedAt = microtime(true);
        $this->assertSame(['calls' => 1, 'done' => 0, 'attempts' => 1, 'failed' => 0], RecordingJob::record(1));
        $this->assertSame(1, $queue->size(), 'released for a second');

        [$code] = $app->work(['--stop-when-empty' => true, '--tries' => '2', '--backoff' => '1']);
        $this->assertSame(0, $code);
        if (microtime(true) - $failedAt < 0.9) { // the second worker ran within the backoff
            $this->assertSame(1, RecordingJob::record(1)['calls'], 'the released job came back before its backoff');
        }

        usleep(1100000);
        [$code] = $app->work(['--stop-when-empty' => true, '--tries' => '2', '--backoff' => '1']);
        $this->assertSame(0, $code);
        $this->assertSame(['calls' => 2, 'done' => 1, 'attempts' => 2, 'failed' => 0], RecordingJob::record(1));
        $this->assertGreaterThanOrEqual($start + 1.0, (float) ephpm_kv_get('lq:at:1'));
    }

    public function testDelayedJobWaitsForItsDelay(): void
    {
        $app = QueueApp::create();
        $queue = $this->connection($app);
        $pushedAt = microtime(true);
        $queue->later(2, new RecordingJob(1));
        $app[Dispatcher::class]->dispatch((new RecordingJob(2))->onConnection('ephpm')->delay(2));
        $queue->push(new RecordingJob(3));
        $this->assertSame(3, $queue->size(), 'delayed jobs are counted');

        [$code] = $app->work(['--stop-when-empty' => true]);
        $this->assertSame(0, $code);
        $this->assertSame(1, RecordingJob::record(3)['done'], 'the job without a delay at once');
        if (microtime(true) - $pushedAt < 1.9) {
            $this->assertSame(0, RecordingJob::record(1)['calls'], 'later(2) ran before its delay');
            $this->assertSame(0, RecordingJob::record(2)['calls'], 'delay(2) ran before its delay');
            $this->assertSame(2, $queue->size());
        }

        usleep((int) max(0, ($pushedAt + 2.1 - microtime(true)) * 1e6));
        [$code] = $app->work(['--stop-when-empty' => true]);
        $this->assertSame(0, $code);
        foreach ([1, 2] as $n) {
            $this->assertSame(1, RecordingJob::record($n)['done'], "delayed job $n");
            $this->assertGreaterThanOrEqual($pushedAt + 1.95, (float) ephpm_kv_get("lq:at:$n"));
        }
        $this->assertSame(0, $queue->size());
    }

    public function testUnfinishedJobComesBackAfterRetryAfter(): void
    {
        $app = QueueApp::create(['retry_after' => 1]);
        $queue = $this->connection($app);
        $queue->push(new RecordingJob(1));

        // a worker takes the job and dies: no delete, no release
        $takenAt = microtime(true);
        $taken = $queue->pop();
        $this->assertNotNull($taken);
        $this->assertSame(1, $taken->attempts());

        [$code] = $app->work(['--stop-when-empty' => true]);
        $this->assertSame(0, $code);
        if (microtime(true) - $takenAt < 0.9) { // (on a machine that kept up)
            $this->assertSame(0, RecordingJob::record(1)['calls'], 'invisible while reserved');
            $this->assertSame(1, $queue->size());
        }

        usleep((int) max(0, ($takenAt + 1.2 - microtime(true)) * 1e6));
        [$code] = $app->work(['--stop-when-empty' => true, '--tries' => '3']);
        $this->assertSame(0, $code);
        $this->assertSame(['calls' => 1, 'done' => 1, 'attempts' => 2, 'failed' => 0], RecordingJob::record(1),
            'delivered again, its lost delivery counted');
        $this->assertSame(0, $queue->size());

        // the first worker's late delete changes nothing (the job is gone)
        $taken->delete();
        $this->assertSame(0, $queue->size());
    }

    public function testCrashedDeliveriesCountAgainstTries(): void
    {
        $app = QueueApp::create(['retry_after' => 0.3]);
        $queue = $this->connection($app);
        $queue->push(new RecordingJob(1));
        $this->assertNotNull($queue->pop());     // two workers died with it
        usleep(400000);
        $this->assertNotNull($queue->pop());
        usleep(400000);

        [$code] = $app->work(['--stop-when-empty' => true, '--tries' => '2']);
        $this->assertSame(0, $code);
        $this->assertSame(0, RecordingJob::record(1)['calls'], 'its third delivery is over --tries=2: not run');
        $this->assertCount(1, $app->failed);
        $this->assertSame(1, RecordingJob::record(1)['failed']);
        $this->assertSame(0, $queue->size());
    }

    public function testReleaseFromTheJobGivesItBack(): void
    {
        $app = QueueApp::create();
        $queue = $this->connection($app);
        $queue->push(new RecordingJob(1));
        $job = $queue->pop();
        $job->release(0);
        $this->assertTrue($job->isReleased());
        $again = $queue->pop();
        $this->assertNotNull($again);
        $this->assertSame($job->getJobId(), $again->getJobId());
        $this->assertSame(2, $again->attempts());
        $again->release(5);
        $this->assertNull($queue->pop(), 'released with a delay');
        $this->assertSame(1, $queue->size());
    }

    public function testWorkerProcessesShareTheQueue(): void
    {
        $reason = Processes::unsharedReason();
        if ($reason !== null) {
            $this->markTestSkipped($reason);
        }
        $app = QueueApp::create();
        $queue = $this->connection($app);
        $jobs = 30;
        for ($n = 1; $n <= $jobs; $n++) {
            $queue->push(new RecordingJob($n));
        }
        $results = Processes::runAll(array_fill(0, 3,
            Processes::php(__DIR__ . '/artisan.php', 'queue:work', 'ephpm', '--stop-when-empty', '--sleep=0', '--tries=1')));
        foreach ($results as [$code, $out, $err]) {
            $this->assertSame(0, $code, "worker failed: $out $err");
        }
        for ($n = 1; $n <= $jobs; $n++) {
            $this->assertSame(['calls' => 1, 'done' => 1, 'attempts' => 1, 'failed' => 0], RecordingJob::record($n), "job $n");
        }
        $this->assertSame(0, $queue->size());
    }
}
