<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Symfony\Messenger;

use Ephpm\KvException;
use Ephpm\Queue;
use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Exception\InvalidArgumentException;
use Symfony\Component\Messenger\Exception\LogicException;
use Symfony\Component\Messenger\Exception\MessageDecodingFailedException;
use Symfony\Component\Messenger\Exception\TransportException;
use Symfony\Component\Messenger\Stamp\DelayStamp;
use Symfony\Component\Messenger\Stamp\NonSendableStampInterface;
use Symfony\Component\Messenger\Stamp\TransportMessageIdStamp;
use Symfony\Component\Messenger\Transport\Receiver\MessageCountAwareInterface;
use Symfony\Component\Messenger\Transport\Serialization\PhpSerializer;
use Symfony\Component\Messenger\Transport\Serialization\SerializerInterface;
use Symfony\Component\Messenger\Transport\TransportInterface;

/**
 * Symfony Messenger (5.4, 6.4) transport on an Ephpm\Queue:
 * DSN "ephpm://QUEUE?visibility=30&max_attempts=5" (EphpmTransportFactory).
 *
 *   send     push() of the encoded envelope; a DelayStamp delays it (push's
 *            delay); the envelope comes back with a TransportMessageIdStamp
 *   get      pop(): at most one envelope, with a TransportMessageIdStamp (the
 *            job's id) and an EphpmReceivedStamp (the delivery)
 *   ack      the delivery's ack(): the message is gone
 *   reject   the same: Messenger has already decided (its retry strategy
 *            sends a retry as a new message, its failure transport keeps the
 *            failed one), so the transport only forgets this delivery
 *   getMessageCount  size(): waiting, delayed and received-not-acknowledged
 *
 * Delivery is at least once: a received message is invisible to other
 * workers for `visibility` seconds; one neither acknowledged nor rejected in
 * that time (the worker died, or the handler ran longer) is delivered again
 * (EphpmReceivedStamp::getAttempts() counts the deliveries), so handlers
 * should be idempotent and `visibility` longer than the slowest handler.
 * After `max_attempts` such deliveries the engine moves the message to the
 * queue's dead list (Ephpm\Queue::dead(), retry()) instead. An ack or reject
 * after the visibility ran out changes nothing (the message may be with
 * another worker by then).
 *
 * The Ephpm\Queue is named "sf-messenger:QUEUE", apart from the other
 * bridges' keys. What is stored: the encoded envelope's headers as one line
 * of JSON, a newline, then the body as the serializer made it (binary safe).
 * The engine (shared segment, server, Redis, etcd) is the extension's ini
 * settings, as for the other bridges.
 */
class EphpmTransport implements TransportInterface, MessageCountAwareInterface
{
    /** The prefix of the Ephpm\Queue names of Messenger transports. */
    public const PREFIX = 'sf-messenger:';

    /** What a DSN or options may set, with the defaults. */
    public const DEFAULT_OPTIONS = [
        'queue' => 'messages',      // the queue's name (the DSN's host part)
        'visibility' => 30.0,       // seconds a received message is invisible to other workers
        'max_attempts' => 5,        // deliveries without an ack before the message goes to the dead list
        'wait' => 0.0,              // seconds get() waits for a message (0: it returns at once)
    ];

    private Queue $queue;
    private SerializerInterface $serializer;
    private float $wait;

    public function __construct(Queue $queue, ?SerializerInterface $serializer = null, float $wait = 0.0)
    {
        $this->queue = $queue;
        $this->serializer = $serializer ?? new PhpSerializer();
        $this->wait = $wait;
    }

    /**
     * A transport for "ephpm://QUEUE?visibility=30&max_attempts=5&wait=0";
     * $options (framework.messenger's "options") may set the same keys, and the DSN's query wins.
     *
     * @param array<string, mixed> $options
     */
    public static function fromDsn(string $dsn, array $options = [], ?SerializerInterface $serializer = null): self
    {
        if (!str_starts_with($dsn, 'ephpm://')) {
            throw new InvalidArgumentException(sprintf('The DSN "%s" is not an ephpm:// DSN.', $dsn));
        }
        $rest = substr($dsn, \strlen('ephpm://'));
        $query = [];
        if (false !== $q = strpos($rest, '?')) {
            parse_str(substr($rest, $q + 1), $query);
            $rest = substr($rest, 0, $q);
        }
        if ('' !== $rest) {
            $query['queue'] = rawurldecode($rest);
        }
        unset($options['transport_name']); // FrameworkBundle adds it to every transport's options
        $options = $query + $options;
        if ($unknown = array_diff_key($options, self::DEFAULT_OPTIONS)) {
            throw new InvalidArgumentException(sprintf('Unknown option(s) "%s" for the ephpm transport; known: "%s".', implode('", "', array_keys($unknown)), implode('", "', array_keys(self::DEFAULT_OPTIONS))));
        }
        $options += self::DEFAULT_OPTIONS;
        foreach (['visibility', 'max_attempts', 'wait'] as $name) {
            if (!is_numeric($options[$name])) {
                throw new InvalidArgumentException(sprintf('The ephpm transport\'s "%s" must be a number, %s given.', $name, json_encode($options[$name])));
            }
        }
        $name = (string) $options['queue'];
        if ('' === $name) {
            throw new InvalidArgumentException('The ephpm transport needs a queue name: ephpm://QUEUE.');
        }

        try {
            $queue = new Queue(self::PREFIX . $name, (float) $options['visibility'], (int) $options['max_attempts']);
        } catch (\ValueError $e) {
            throw new InvalidArgumentException(sprintf('Invalid ephpm transport "%s": %s', $dsn, $e->getMessage()), 0, $e);
        }

        return new self($queue, $serializer, max(0.0, (float) $options['wait']));
    }

    public function get(): iterable
    {
        $job = $this->call(fn () => $this->queue->pop($this->wait));
        if (null === $job) {
            return [];
        }
        try {
            $envelope = $this->serializer->decode(self::unpack($job->payload));
        } catch (MessageDecodingFailedException $e) {
            // as Symfony's transports do: a message that cannot be decoded is
            // removed, never retried (it would fail the same way each time)
            $this->call(fn () => $job->ack());

            throw $e;
        }

        return [$envelope->with(new EphpmReceivedStamp($job), new TransportMessageIdStamp($job->id))];
    }

    public function ack(Envelope $envelope): void
    {
        $job = $this->stamp($envelope)->getJob();
        $this->call(fn () => $job->ack());
    }

    public function reject(Envelope $envelope): void
    {
        $job = $this->stamp($envelope)->getJob();
        $this->call(fn () => $job->ack());
    }

    public function send(Envelope $envelope): Envelope
    {
        $delayStamp = $envelope->last(DelayStamp::class);
        $delay = null !== $delayStamp ? max(0, $delayStamp->getDelay()) / 1000 : 0.0;
        // this worker's delivery (a retry carries it) is no part of the new message
        $encoded = $this->serializer->encode($envelope->withoutStampsOfType(NonSendableStampInterface::class));
        $id = $this->call(fn () => $this->queue->push(self::pack($encoded), $delay));

        return $envelope->with(new TransportMessageIdStamp($id));
    }

    public function getMessageCount(): int
    {
        return $this->call(fn () => $this->queue->size());
    }

    /**
     * Extends a received message's invisibility to `visibility` seconds from
     * now, for a handler that runs longer; false once it ran out.
     */
    public function touch(Envelope $envelope): bool
    {
        $job = $this->stamp($envelope)->getJob();

        return $this->call(fn () => $job->touch());
    }

    /** The Ephpm\Queue behind the transport: its dead list (dead(), retry()). */
    public function getQueue(): Queue
    {
        return $this->queue;
    }

    /** @param array{body: string, headers?: array<string, mixed>} $encoded */
    private static function pack(array $encoded): string
    {
        $headers = json_encode($encoded['headers'] ?? [], \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE);

        return $headers . "\n" . $encoded['body'];
    }

    /** @return array{body: string, headers: array<string, mixed>} */
    private static function unpack(string $payload): array
    {
        $newline = strpos($payload, "\n");
        $headers = false !== $newline ? json_decode(substr($payload, 0, $newline), true) : null;
        if (!\is_array($headers)) {
            throw new MessageDecodingFailedException('The ephpm transport cannot read this message: it was not sent by an ephpm transport.');
        }

        return ['body' => substr($payload, $newline + 1), 'headers' => $headers];
    }

    private function stamp(Envelope $envelope): EphpmReceivedStamp
    {
        $stamp = $envelope->last(EphpmReceivedStamp::class);
        if (!$stamp instanceof EphpmReceivedStamp) {
            throw new LogicException('No EphpmReceivedStamp on the envelope: it was not received from an ephpm transport.');
        }

        return $stamp;
    }

    /** Runs one engine call; a store failure (Ephpm\KvException) becomes Messenger's TransportException. */
    private function call(\Closure $op): mixed
    {
        try {
            return $op();
        } catch (KvException $e) {
            throw new TransportException('The ephpm queue failed: ' . $e->getMessage(), 0, $e);
        }
    }
}
