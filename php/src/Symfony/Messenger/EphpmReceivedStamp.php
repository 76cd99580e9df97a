<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Symfony\Messenger;

use Ephpm\Job;
use Symfony\Component\Messenger\Stamp\NonSendableStampInterface;

/**
 * Carries the engine's delivery (Ephpm\Job) of a received envelope, for
 * EphpmTransport::ack() and reject(). Never sent or serialized: it belongs
 * to the worker that received the message.
 */
final class EphpmReceivedStamp implements NonSendableStampInterface
{
    private Job $job;

    public function __construct(Job $job)
    {
        $this->job = $job;
    }

    public function getJob(): Job
    {
        return $this->job;
    }

    /** The job's id in the Ephpm\Queue, the same on every delivery. */
    public function getId(): string
    {
        return $this->job->id;
    }

    /**
     * Deliveries of this message by the engine, this one included: above 1
     * when a worker took it before and neither acknowledged nor rejected it
     * within the visibility (it died, or ran longer). Messenger's own retries
     * are new messages (RedeliveryStamp counts those).
     */
    public function getAttempts(): int
    {
        return $this->job->attempts;
    }
}
