<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Symfony\Messenger;

use Ephpm\Bridge\Symfony\Messenger\EphpmReceivedStamp;
use Ephpm\Bridge\Symfony\Messenger\EphpmTransport;
use Ephpm\Bridge\Symfony\Messenger\EphpmTransportFactory;
use Ephpm\Bridge\Tests\Support\Processes;
use Ephpm\Queue;
use PHPUnit\Framework\TestCase;
use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Exception\InvalidArgumentException;
use Symfony\Component\Messenger\Exception\MessageDecodingFailedException;
use Symfony\Component\Messenger\Stamp\DelayStamp;
use Symfony\Component\Messenger\Stamp\SentToFailureTransportStamp;
use Symfony\Component\Messenger\Stamp\TransportMessageIdStamp;
use Symfony\Component\Messenger\Transport\Receiver\MessageCountAwareInterface;
use Symfony\Component\Messenger\Transport\Serialization\PhpSerializer;
use Symfony\Component\Messenger\Transport\Serialization\SerializerInterface;
use Symfony\Component\Messenger\Transport\TransportInterface;

/**
 * The ephpm:// transport through Messenger's TransportFactory, its bus and
 * its own worker (`bin/console messenger:consume`, ConsumeMessagesCommand in
 * a Console Application: MessengerApp): messages are handled once each,
 * failures are retried by Messenger's retry strategy with their retries
 * counted and then kept by the failure transport, DelayStamp and retry
 * delays hold a message back, a message a worker received and never
 * acknowledged comes back after the visibility, message counts. The
 * worker-process test runs where processes share a store.
 */
final class EphpmTransportTest extends TestCase
{
    protected function setUp(): void
    {
        $missing = require __DIR__ . '/autoload.php';
        if ($missing) {
            $this->markTestSkipped('Symfony components not installed: ' . implode(', ', $missing) . ' (build/deps.sh bridges)');
        }
        ephpm_kv_flush();
    }

    public function testFactoryMakesTransportsFromDsns(): void
    {
        $factory = new EphpmTransportFactory();
        $this->assertTrue($factory->supports('ephpm://orders', []));
        $this->assertTrue($factory->supports('ephpm://', []));
        $this->assertFalse($factory->supports('redis://localhost', []));
        $this->assertFalse($factory->supports('doctrine://default', []));

        $transport = $factory->createTransport('ephpm://orders?visibility=7.5&max_attempts=3', ['transport_name' => 'async'], new PhpSerializer());
        $this->assertInstanceOf(TransportInterface::class, $transport);
        $this->assertInstanceOf(MessageCountAwareInterface::class, $transport);
        $queue = $transport->getQueue();
        $this->assertSame('sf-messenger:orders', $queue->name);
        $this->assertEquals(7.5, $queue->visibility);
        $this->assertSame(3, $queue->maxAttempts);

        // the transport's options, with the DSN's query winning
        $queue = $factory->createTransport('ephpm://orders?visibility=9', ['visibility' => 4, 'max_attempts' => 2], new PhpSerializer())->getQueue();
        $this->assertEquals(9.0, $queue->visibility);
        $this->assertSame(2, $queue->maxAttempts);

        $queue = $factory->createTransport('ephpm://', ['queue' => 'jobs'], new PhpSerializer())->getQueue();
        $this->assertSame('sf-messenger:jobs', $queue->name);
        $this->assertEquals(30.0, $queue->visibility);
        $this->assertSame(5, $queue->maxAttempts);
        $this->assertSame('sf-messenger:a b', $factory->createTransport('ephpm://a%20b', [], new PhpSerializer())->getQueue()->name);
    }

    public function testFactoryRefusesUnknownOptions(): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->expectExceptionMessage('"visibilty"');
        (new EphpmTransportFactory())->createTransport('ephpm://orders?visibilty=3', [], new PhpSerializer());
    }

    public function testFactoryRefusesABadVisibility(): void
    {
        $this->expectException(InvalidArgumentException::class);
        (new EphpmTransportFactory())->createTransport('ephpm://orders?visibility=-1', [], new PhpSerializer());
    }

    public function testSendGetAck(): void
    {
        $transport = (new MessengerApp())->transport();
        $sent = $transport->send(new Envelope(new TestMessage(1), [new DelayStamp(0)]));
        $id = $sent->last(TransportMessageIdStamp::class)->getId();
        $this->assertNotSame('', $id);
        $this->assertSame(1, $transport->getMessageCount());
        $this->assertSame(1, (new Queue('sf-messenger:orders'))->size(), 'the queue the DSN names');

        $received = [...$transport->get()];
        $this->assertCount(1, $received);
        $envelope = $received[0];
        $this->assertEquals(new TestMessage(1), $envelope->getMessage());
        $this->assertSame($id, $envelope->last(TransportMessageIdStamp::class)->getId());
        $stamp = $envelope->last(EphpmReceivedStamp::class);
        $this->assertSame($id, $stamp->getId());
        $this->assertSame(1, $stamp->getAttempts());

        $this->assertSame([], [...$transport->get()], 'a received message is invisible to the next get()');
        $this->assertSame(1, $transport->getMessageCount(), 'and still counted until acknowledged');
        $transport->ack($envelope);
        $this->assertSame(0, $transport->getMessageCount());
        $this->assertSame([], [...$transport->get()]);
    }

    public function testRejectForgetsTheMessage(): void
    {
        $transport = (new MessengerApp())->transport();
        $transport->send(new Envelope(new TestMessage(1)));
        [$envelope] = [...$transport->get()];
        $transport->reject($envelope);
        $this->assertSame(0, $transport->getMessageCount());
    }

    public function testHeadersAndABinaryBodySurvive(): void
    {
        // a serializer that puts its data in headers (as Symfony's Serializer
        // does) and a body that is no UTF-8
        $serializer = new class() implements SerializerInterface {
            public function decode(array $encodedEnvelope): Envelope
            {
                return new Envelope(new TestMessage((int) $encodedEnvelope['headers']['n'], ord($encodedEnvelope['body'][1])));
            }

            public function encode(Envelope $envelope): array
            {
                return ['body' => "\xff" . chr($envelope->getMessage()->fail) . "\n\x00", 'headers' => ['n' => (string) $envelope->getMessage()->n, 'type' => 'é']];
            }
        };
        $transport = EphpmTransport::fromDsn('ephpm://binary', [], $serializer);
        $transport->send(new Envelope(new TestMessage(4, 200)));
        [$envelope] = [...$transport->get()];
        $this->assertEquals(new TestMessage(4, 200), $envelope->getMessage());
    }

    public function testUndecodableMessageIsRemoved(): void
    {
        $transport = (new MessengerApp())->transport();
        (new Queue('sf-messenger:orders'))->push('not a message');
        try {
            $transport->get();
            $this->fail('no MessageDecodingFailedException');
        } catch (MessageDecodingFailedException $e) {
        }
        $this->assertSame(0, $transport->getMessageCount(), 'removed, never redelivered');

        $transport->send(new Envelope(new TestMessage(1)));
        $payload = (new Queue('sf-messenger:orders'))->pop()->payload;
        (new Queue('sf-messenger:orders'))->push(str_replace('TestMessage', 'MissingMessage', $payload));
        $this->expectException(MessageDecodingFailedException::class);
        $transport->get();
    }

    public function testWorkerHandlesEachMessageOnce(): void
    {
        $app = new MessengerApp();
        for ($n = 1; $n <= 5; $n++) {
            $app->bus->dispatch(new TestMessage($n));
        }
        $this->assertSame(5, $app->transport()->getMessageCount());
        $this->assertSame(0, TestMessageHandler::record(1)['calls'], 'sent, not handled, by the bus');

        [$code, $out] = $app->consume(['--limit' => '5', '--time-limit' => '20']);
        $this->assertSame(0, $code, $out);
        for ($n = 1; $n <= 5; $n++) {
            $this->assertSame(['calls' => 1, 'done' => 1, 'retries' => 0, 'attempts' => 1], TestMessageHandler::record($n), "message $n");
        }
        $this->assertSame(0, $app->transport()->getMessageCount());
        $this->assertSame(0, $app->transport('failed')->getMessageCount());
    }

    public function testLimitStopsTheWorker(): void
    {
        $app = new MessengerApp();
        for ($n = 1; $n <= 3; $n++) {
            $app->bus->dispatch(new TestMessage($n));
        }
        [$code] = $app->consume(['--limit' => '2', '--time-limit' => '20']);
        $this->assertSame(0, $code);
        $this->assertSame(1, TestMessageHandler::record(1)['done'], 'oldest first');
        $this->assertSame(1, TestMessageHandler::record(2)['done']);
        $this->assertSame(0, TestMessageHandler::record(3)['calls']);
        $this->assertSame(1, $app->transport()->getMessageCount());
    }

    public function testFailingMessageIsRetriedWithItsRetriesCounted(): void
    {
        $app = new MessengerApp('ephpm://orders', 3, 0);
        $app->bus->dispatch(new TestMessage(1, 2)); // fails twice

        [$code, $out] = $app->consume(['--limit' => '3', '--time-limit' => '20']);
        $this->assertSame(0, $code, $out);
        $this->assertSame(['calls' => 3, 'done' => 1, 'retries' => 2, 'attempts' => 1], TestMessageHandler::record(1));
        $this->assertSame(0, $app->transport()->getMessageCount(), 'each failed delivery was rejected');
        $this->assertSame(0, $app->transport('failed')->getMessageCount());
    }

    public function testMessageOverItsRetriesGoesToTheFailureTransport(): void
    {
        $app = new MessengerApp('ephpm://orders', 1, 0);
        $app->bus->dispatch(new TestMessage(1, 100));

        [$code, $out] = $app->consume(['--limit' => '2', '--time-limit' => '20']);
        $this->assertSame(0, $code, $out);
        $this->assertSame(['calls' => 2, 'done' => 0, 'retries' => 0, 'attempts' => 0], TestMessageHandler::record(1));
        $this->assertSame(0, $app->transport()->getMessageCount());
        $this->assertSame(1, $app->transport('failed')->getMessageCount());

        [$envelope] = [...$app->transport('failed')->get()];
        $this->assertEquals(new TestMessage(1, 100), $envelope->getMessage());
        $this->assertSame('async', $envelope->last(SentToFailureTransportStamp::class)->getOriginalReceiverName());
        $this->assertSame('sf-messenger:orders-failed', $envelope->last(EphpmReceivedStamp::class)->getJob()->queue);
    }

    public function testRetryDelayHoldsTheRetryBack(): void
    {
        $app = new MessengerApp('ephpm://orders', 3, 1000);
        $app->bus->dispatch(new TestMessage(1, 1));

        $start = microtime(true); // before the retry is sent: it is visible after $start + 1
        [$code] = $app->consume(['--limit' => '1', '--time-limit' => '20']);
        $this->assertSame(0, $code);
        $this->assertSame(1, TestMessageHandler::record(1)['calls']);
        $this->assertSame(1, $app->transport()->getMessageCount(), 'the retry, delayed');
        if (microtime(true) - $start < 0.9) { // (on a machine that kept up)
            $this->assertSame([], [...$app->transport()->get()], 'not visible before its delay');
        }

        usleep((int) max(0, ($start + 1.5 - microtime(true)) * 1e6));
        [$code] = $app->consume(['--limit' => '1', '--time-limit' => '20']);
        $this->assertSame(0, $code);
        $this->assertSame(['calls' => 2, 'done' => 1, 'retries' => 1, 'attempts' => 1], TestMessageHandler::record(1));
        $this->assertGreaterThanOrEqual($start + 1.0, (float) ephpm_kv_get('sm:at:1'));
    }

    public function testDelayStampHoldsTheMessageBack(): void
    {
        $app = new MessengerApp();
        $sentAt = microtime(true);
        $app->bus->dispatch(new TestMessage(1), [new DelayStamp(1500)]);
        $app->bus->dispatch(new TestMessage(2));
        $this->assertSame(2, $app->transport()->getMessageCount(), 'a delayed message is counted');

        [$code] = $app->consume(['--limit' => '1', '--time-limit' => '20']);
        $this->assertSame(0, $code);
        $this->assertSame(1, TestMessageHandler::record(2)['done'], 'the message without a delay first');
        if (microtime(true) - $sentAt < 1.4) {
            $this->assertSame(0, TestMessageHandler::record(1)['calls']);
            $this->assertSame([], [...$app->transport()->get()], 'not visible before its delay');
        }

        usleep((int) max(0, ($sentAt + 1.55 - microtime(true)) * 1e6));
        [$code] = $app->consume(['--limit' => '1', '--time-limit' => '20']);
        $this->assertSame(0, $code);
        $this->assertSame(1, TestMessageHandler::record(1)['done']);
        $this->assertGreaterThanOrEqual($sentAt + 1.45, (float) ephpm_kv_get('sm:at:1'));
        $this->assertSame(0, $app->transport()->getMessageCount());
    }

    public function testUnacknowledgedMessageComesBackAfterTheVisibility(): void
    {
        $app = new MessengerApp('ephpm://orders?visibility=1');
        $app->bus->dispatch(new TestMessage(1));

        // a worker receives it and dies: no ack, no reject
        $lostAt = microtime(true);
        [$lost] = [...$app->transport()->get()];
        if (microtime(true) - $lostAt < 0.9) {
            $this->assertSame([], [...$app->transport()->get()]);
        }

        usleep((int) max(0, ($lostAt + 1.15 - microtime(true)) * 1e6));
        [$code] = $app->consume(['--limit' => '1', '--time-limit' => '20']);
        $this->assertSame(0, $code);
        $this->assertSame(['calls' => 1, 'done' => 1, 'retries' => 0, 'attempts' => 2], TestMessageHandler::record(1),
            'delivered again, the lost delivery counted');
        $this->assertSame(0, $app->transport()->getMessageCount());

        $app->transport()->ack($lost); // the dead worker's late ack changes nothing
        $this->assertSame(0, $app->transport()->getMessageCount());
    }

    public function testTouchKeepsAReceivedMessage(): void
    {
        $transport = (new MessengerApp('ephpm://orders?visibility=1'))->transport();
        $transport->send(new Envelope(new TestMessage(1)));
        $receivedAt = microtime(true);
        [$envelope] = [...$transport->get()];
        usleep(600000);
        $touchedAt = microtime(true);
        $touched = $transport->touch($envelope);
        if ($touchedAt - $receivedAt > 0.95) {
            $this->markTestSkipped('the machine was too slow to touch within the visibility');
        }
        $this->assertTrue($touched);
        usleep((int) max(0, ($receivedAt + 1.2 - microtime(true)) * 1e6));
        if (microtime(true) - $touchedAt < 0.95) {
            $this->assertSame([], [...$transport->get()], 'touched: still invisible past the first visibility');
        }
        $transport->ack($envelope);
        $this->assertSame(0, $transport->getMessageCount());
    }

    public function testMessageNeverAcknowledgedEndsOnTheDeadList(): void
    {
        $transport = (new MessengerApp('ephpm://orders?visibility=0.2&max_attempts=2'))->transport();
        $transport->send(new Envelope(new TestMessage(1)));
        $this->assertCount(1, [...$transport->get()]);
        usleep(250000);
        $this->assertCount(1, [...$transport->get()]);
        usleep(250000);
        $this->assertSame([], [...$transport->get()], 'two deliveries were the limit');
        $this->assertSame(0, $transport->getMessageCount());
        $dead = $transport->getQueue()->dead();
        $this->assertCount(1, $dead);
        $this->assertSame(2, $dead[0]['attempts']);

        $this->assertSame(1, $transport->getQueue()->retry());
        [$envelope] = [...$transport->get()];
        $this->assertEquals(new TestMessage(1), $envelope->getMessage());
        $this->assertSame(1, $envelope->last(EphpmReceivedStamp::class)->getAttempts());
    }

    public function testWorkerProcessesShareTheTransport(): void
    {
        $reason = Processes::unsharedReason();
        if ($reason !== null) {
            $this->markTestSkipped($reason);
        }
        $app = new MessengerApp();
        $messages = 30;
        for ($n = 1; $n <= $messages; $n++) {
            $app->bus->dispatch(new TestMessage($n));
        }
        $results = Processes::runAll(array_fill(0, 3,
            Processes::php(__DIR__ . '/console.php', 'messenger:consume', 'async', '--time-limit=2', '--sleep=0.02')));
        foreach ($results as [$code, $out, $err]) {
            $this->assertSame(0, $code, "worker failed: $out $err");
        }
        for ($n = 1; $n <= $messages; $n++) {
            $this->assertSame(['calls' => 1, 'done' => 1, 'retries' => 0, 'attempts' => 1], TestMessageHandler::record($n), "message $n");
        }
        $this->assertSame(0, $app->transport()->getMessageCount());
    }
}
