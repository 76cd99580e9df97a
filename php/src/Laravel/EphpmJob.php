<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Laravel;

use Ephpm\Job as Delivery;
use Illuminate\Container\Container;
use Illuminate\Contracts\Queue\Job as JobContract;
use Illuminate\Queue\Jobs\Job;

/**
 * One delivery of a job of the 'ephpm' queue driver (EphpmQueue::pop()).
 *
 * delete() acknowledges it (Ephpm\Job::ack()), release() gives it back to the
 * queue, visible again after the delay (Ephpm\Job::release()); attempts() is
 * the engine's count of deliveries, this one included. Either step is refused
 * by the engine once the job's visibility (retry_after) has run out: the job
 * may then be with another worker, whose delivery it is; this one changes
 * nothing (as RedisJob's delete of a reservation that is gone).
 */
class EphpmJob extends Job implements JobContract
{
    protected EphpmQueue $ephpm;

    protected Delivery $delivery;

    /**
     * @param Container $container
     * @param EphpmQueue $ephpm the connection that popped it
     * @param Delivery $delivery the engine's delivery
     * @param string|null $connectionName
     * @param string $queue the Laravel queue name (without EphpmQueue::NAMESPACE)
     */
    public function __construct(Container $container, EphpmQueue $ephpm, Delivery $delivery, $connectionName, $queue)
    {
        $this->container = $container;
        $this->ephpm = $ephpm;
        $this->delivery = $delivery;
        $this->connectionName = $connectionName;
        $this->queue = $queue;
    }

    /**
     * The engine's job id, the same on every delivery of the job.
     *
     * @return string
     */
    public function getJobId()
    {
        return $this->delivery->id;
    }

    /**
     * Laravel's JSON payload, as pushed.
     *
     * @return string
     */
    public function getRawBody()
    {
        return $this->delivery->payload;
    }

    /**
     * Deliveries of this job so far, this one included (crashed ones too).
     *
     * @return int
     */
    public function attempts()
    {
        return $this->delivery->attempts;
    }

    /**
     * Acknowledges the job: it is gone from the queue.
     *
     * @return void
     */
    public function delete()
    {
        parent::delete();

        $this->delivery->ack();
    }

    /**
     * Gives the job back, visible again after $delay seconds.
     *
     * @param \DateTimeInterface|\DateInterval|int $delay
     * @return void
     */
    public function release($delay = 0)
    {
        parent::release($delay);

        $seconds = is_int($delay) || is_float($delay) || (is_string($delay) && is_numeric($delay))
            ? (float) $delay
            : (float) $this->secondsUntil($delay);
        $this->delivery->release(max(0.0, $seconds));
    }

    /**
     * Extends the job's invisibility to retry_after seconds from now, for a
     * job that runs longer than retry_after; false once it ran out.
     */
    public function touch(): bool
    {
        return $this->delivery->touch();
    }

    /** The engine's delivery (Ephpm\Job). */
    public function getEphpmJob(): Delivery
    {
        return $this->delivery;
    }

    public function getEphpmQueue(): EphpmQueue
    {
        return $this->ephpm;
    }
}
