<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Symfony\Messenger;

use Ephpm\Bridge\Symfony\Messenger\EphpmReceivedStamp;
use Ephpm\Bridge\Symfony\Messenger\EphpmTransportFactory;
use Symfony\Component\Console\Application;
use Symfony\Component\Console\Input\ArrayInput;
use Symfony\Component\Console\Output\BufferedOutput;
use Symfony\Component\DependencyInjection\ServiceLocator;
use Symfony\Component\EventDispatcher\EventDispatcher;
use Symfony\Component\Messenger\Command\ConsumeMessagesCommand;
use Symfony\Component\Messenger\Event\WorkerMessageHandledEvent;
use Symfony\Component\Messenger\EventListener\SendFailedMessageForRetryListener;
use Symfony\Component\Messenger\EventListener\SendFailedMessageToFailureTransportListener;
use Symfony\Component\Messenger\Handler\HandlersLocator;
use Symfony\Component\Messenger\MessageBus;
use Symfony\Component\Messenger\Middleware\HandleMessageMiddleware;
use Symfony\Component\Messenger\Middleware\SendMessageMiddleware;
use Symfony\Component\Messenger\Retry\MultiplierRetryStrategy;
use Symfony\Component\Messenger\RoutableMessageBus;
use Symfony\Component\Messenger\Stamp\RedeliveryStamp;
use Symfony\Component\Messenger\Transport\Sender\SendersLocator;
use Symfony\Component\Messenger\Transport\Serialization\PhpSerializer;
use Symfony\Component\Messenger\Transport\TransportFactory;
use Symfony\Component\Messenger\Transport\TransportInterface;

/**
 * What FrameworkBundle wires for `framework.messenger`, by hand: transports
 * made by Messenger's TransportFactory from their DSNs (the bridge's factory
 * among Messenger's own), TestMessage routed to the "async" transport, a bus
 * that sends it there and handles it once received, the retry strategy and
 * the failure transport ("failed"), and `bin/console messenger:consume`
 * (ConsumeMessagesCommand) in a Console Application.
 *
 *     framework:
 *         messenger:
 *             failure_transport: failed
 *             transports:
 *                 async: { dsn: 'ephpm://orders?visibility=30', retry_strategy: { max_retries: 3, delay: 0 } }
 *                 failed: 'ephpm://orders-failed'
 *             routing: { TestMessage: async }
 */
final class MessengerApp
{
    /** @var array<string, TransportInterface> */
    public array $transports;
    public MessageBus $bus;

    private MultiplierRetryStrategy $retry;

    /**
     * @param string $dsn the async transport's DSN
     * @param int $maxRetries the async transport's retry strategy: retries before the failure transport
     * @param int $retryDelay milliseconds before a retry
     */
    public function __construct(string $dsn = 'ephpm://orders', int $maxRetries = 3, int $retryDelay = 0)
    {
        $factory = new TransportFactory([new EphpmTransportFactory()]);
        $serializer = new PhpSerializer();
        $this->transports = [
            'async' => $factory->createTransport($dsn, ['transport_name' => 'async'], $serializer),
            'failed' => $factory->createTransport('ephpm://orders-failed', ['transport_name' => 'failed'], $serializer),
        ];
        $this->retry = new MultiplierRetryStrategy($maxRetries, $retryDelay);
        $this->bus = new MessageBus([
            new SendMessageMiddleware(new SendersLocator([TestMessage::class => ['async']], $this->locator($this->transports))),
            new HandleMessageMiddleware(new HandlersLocator([TestMessage::class => [new TestMessageHandler()]])),
        ]);
    }

    public function transport(string $name = 'async'): TransportInterface
    {
        return $this->transports[$name];
    }

    /** The console, with messenger:consume as FrameworkBundle registers it (its listeners on a dispatcher of their own). */
    public function console(): Application
    {
        $events = new EventDispatcher();
        $events->addSubscriber(new SendFailedMessageForRetryListener(
            $this->locator($this->transports),
            $this->locator(['async' => $this->retry, 'failed' => $this->retry])
        ));
        $events->addSubscriber(new SendFailedMessageToFailureTransportListener($this->locator(['async' => $this->transports['failed']])));
        // what each handled message carried: its retries and the engine's deliveries
        $events->addListener(WorkerMessageHandledEvent::class, static function (WorkerMessageHandledEvent $event): void {
            $envelope = $event->getEnvelope();
            $message = $envelope->getMessage();
            if ($message instanceof TestMessage) {
                ephpm_kv_set("sm:retries:{$message->n}", (string) RedeliveryStamp::getRetryCountFromEnvelope($envelope));
                $stamp = $envelope->last(EphpmReceivedStamp::class);
                ephpm_kv_set("sm:attempts:{$message->n}", (string) ($stamp ? $stamp->getAttempts() : 0));
            }
        });
        $console = new Application('ephpm-test');
        $console->setAutoExit(false);
        $console->setCatchExceptions(false);
        $console->add(new ConsumeMessagesCommand(
            new RoutableMessageBus($this->locator(['messenger.bus.default' => $this->bus]), $this->bus),
            $this->locator($this->transports),
            $events,
            null,
            array_keys($this->transports)
        ));

        return $console;
    }

    /**
     * `bin/console messenger:consume async` with $options (e.g. ['--limit' => 3]).
     *
     * @param array<string, mixed> $options
     * @return array{int, string} exit code and output
     */
    public function consume(array $options, string $transport = 'async'): array
    {
        $input = new ArrayInput(['command' => 'messenger:consume', 'receivers' => [$transport], '--sleep' => '0.02'] + $options);
        $input->setInteractive(false);
        $output = new BufferedOutput();
        $code = $this->console()->run($input, $output);

        return [$code, $output->fetch()];
    }

    /** @param array<string, object> $services */
    private function locator(array $services): ServiceLocator
    {
        return new ServiceLocator(array_map(static fn (object $service) => static fn () => $service, $services));
    }
}
