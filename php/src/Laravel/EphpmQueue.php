<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Laravel;

use Ephpm\Queue as Store;
use Illuminate\Contracts\Queue\Queue as QueueContract;
use Illuminate\Queue\Queue;

/**
 * Laravel's queue connection on ephpm-kv (the 'ephpm' driver), on Ephpm\Queue.
 *
 * Each Laravel queue name is one Ephpm\Queue named NAMESPACE . $queue
 * ("ephpm:laravel:queue:default"), apart from the cache store's keys and the
 * other bridges'. The payload is Laravel's own JSON payload, stored as it is.
 *
 * Delivery is at least once, as with the Redis driver: pop() makes the job
 * invisible to every other worker for retry_after seconds; a job the worker
 * neither deletes nor releases in that time (the worker died, or the job ran
 * longer) is delivered again, with its attempts counted up. attempts() is
 * the engine's count of deliveries, so Laravel's --tries and a job's $tries
 * also count the deliveries that ended in a crash. retry_after must be
 * longer than the longest job (Laravel's --timeout), as for Redis.
 *
 * max_attempts is the engine's own limit: a job delivered that often without
 * being deleted goes to the Ephpm\Queue dead list (Ephpm\Queue::dead(),
 * retry()) instead of to a worker. Laravel's failed jobs come first: the
 * default (DEFAULT_MAX_ATTEMPTS) is far above any --tries, so Laravel fails a
 * job (failed(), the failed_jobs table) before the engine would park it.
 */
class EphpmQueue extends Queue implements QueueContract
{
    /** The Ephpm\Queue names of this driver: NAMESPACE . $queue. */
    public const NAMESPACE = EphpmStore::NAMESPACE . 'queue:';

    /** The engine's delivery limit unless the connection sets max_attempts: Laravel's tries decide. */
    public const DEFAULT_MAX_ATTEMPTS = 1000;

    /** the queue name a null $queue means */
    protected string $default;

    /** seconds a popped job stays invisible (retry_after) */
    protected float $retryAfter;

    protected int $maxAttempts;

    /** seconds pop() waits for a job (block_for); 0 returns at once */
    protected float $blockFor;

    /** @var array<string, Store> one Ephpm\Queue per queue name */
    private array $queues = [];

    /**
     * @param string $default the queue of push() and pop() without a queue name
     * @param float $retryAfter seconds a popped job is invisible before it is delivered again
     * @param int $maxAttempts deliveries before the engine moves a job to its dead list
     * @param float $blockFor seconds pop() waits for a job to arrive (0: no wait)
     * @param bool|null $dispatchAfterCommit as Laravel's after_commit (null: the job's own setting, else false)
     */
    public function __construct(
        string $default = 'default',
        float $retryAfter = 90,
        int $maxAttempts = self::DEFAULT_MAX_ATTEMPTS,
        float $blockFor = 0,
        ?bool $dispatchAfterCommit = null
    ) {
        $this->default = $default;
        $this->retryAfter = $retryAfter;
        $this->maxAttempts = $maxAttempts;
        $this->blockFor = $blockFor;
        $this->dispatchAfterCommit = $dispatchAfterCommit;
    }

    /**
     * Jobs queued, delayed or reserved by a worker and not yet deleted (as
     * RedisQueue counts them); not the dead list.
     *
     * @param string|null $queue
     * @return int
     */
    public function size($queue = null)
    {
        return $this->store($queue)->size();
    }

    /**
     * @param object|string $job
     * @param mixed $data
     * @param string|null $queue
     * @return string the job's id
     */
    public function push($job, $data = '', $queue = null)
    {
        return $this->enqueueUsing(
            $job,
            $this->createPayload($job, $this->getQueue($queue), $data),
            $queue,
            null,
            function ($payload, $queue) {
                return $this->pushRaw($payload, $queue);
            }
        );
    }

    /**
     * @param string $payload
     * @param string|null $queue
     * @param array<string, mixed> $options 'delay': seconds (or a DateTimeInterface / DateInterval)
     * @return string the job's id
     */
    public function pushRaw($payload, $queue = null, array $options = [])
    {
        return $this->store($queue)->push((string) $payload, $this->delaySeconds($options['delay'] ?? 0));
    }

    /**
     * @param \DateTimeInterface|\DateInterval|int $delay
     * @param object|string $job
     * @param mixed $data
     * @param string|null $queue
     * @return string the job's id
     */
    public function later($delay, $job, $data = '', $queue = null)
    {
        return $this->enqueueUsing(
            $job,
            $this->createPayload($job, $this->getQueue($queue), $data),
            $queue,
            $delay,
            function ($payload, $queue, $delay) {
                return $this->store($queue)->push((string) $payload, $this->delaySeconds($delay));
            }
        );
    }

    /**
     * The next visible job, reserved for this worker for retry_after seconds;
     * null when there is none (after waiting block_for seconds).
     *
     * @param string|null $queue
     * @return EphpmJob|null
     */
    public function pop($queue = null)
    {
        $job = $this->store($queue)->pop($this->blockFor);
        if ($job === null) {
            return null;
        }

        return new EphpmJob($this->container, $this, $job, $this->connectionName, $this->getQueue($queue));
    }

    /**
     * The queue name a null or empty $queue stands for.
     *
     * @param string|null $queue
     * @return string
     */
    public function getQueue($queue)
    {
        return $queue !== null && $queue !== '' ? (string) $queue : $this->default;
    }

    /**
     * The Ephpm\Queue behind a Laravel queue name: for its dead list
     * (dead(), retry()) and anything else the driver does not expose.
     *
     * @param string|null $queue
     */
    public function store($queue = null): Store
    {
        $name = $this->getQueue($queue);

        return $this->queues[$name] ??= new Store(self::NAMESPACE . $name, $this->retryAfter, $this->maxAttempts);
    }

    public function getRetryAfter(): float
    {
        return $this->retryAfter;
    }

    /** Laravel's delay (seconds, a DateTimeInterface or a DateInterval) in seconds from now, never negative. */
    protected function delaySeconds(mixed $delay): float
    {
        if (is_int($delay) || is_float($delay) || (is_string($delay) && is_numeric($delay))) {
            return max(0.0, (float) $delay);
        }

        return (float) $this->secondsUntil($delay ?? 0);
    }
}
