<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Symfony\Messenger;

use Symfony\Component\Messenger\Transport\Serialization\SerializerInterface;
use Symfony\Component\Messenger\Transport\TransportFactoryInterface;
use Symfony\Component\Messenger\Transport\TransportInterface;

/**
 * Messenger's factory for "ephpm://QUEUE?visibility=30&max_attempts=5"
 * DSNs (EphpmTransport). Registered by config/symfony.yaml with the
 * messenger.transport_factory tag; then, in config/packages/messenger.yaml:
 *
 *     framework:
 *         messenger:
 *             transports:
 *                 async: 'ephpm://orders?visibility=60'
 */
final class EphpmTransportFactory implements TransportFactoryInterface
{
    /**
     * @param array<string, mixed> $options
     */
    public function createTransport(string $dsn, array $options, SerializerInterface $serializer): TransportInterface
    {
        return EphpmTransport::fromDsn($dsn, $options, $serializer);
    }

    /**
     * @param array<string, mixed> $options
     */
    public function supports(string $dsn, array $options): bool
    {
        return str_starts_with($dsn, 'ephpm://');
    }
}
