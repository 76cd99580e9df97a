<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Symfony\Messenger;

/**
 * Handles TestMessage and records each call in the store, so that a worker
 * in another process is seen too: "sm:calls:N" counts its calls,
 * "sm:done:N" its successful ones, "sm:at:N" when it last succeeded. It
 * throws on the message's first $fail calls.
 */
final class TestMessageHandler
{
    public function __invoke(TestMessage $message): void
    {
        $calls = ephpm_kv_incr("sm:calls:{$message->n}");
        if ($calls <= $message->fail) {
            throw new \RuntimeException("message {$message->n} fails on call $calls");
        }
        ephpm_kv_set("sm:at:{$message->n}", (string) microtime(true));
        ephpm_kv_incr("sm:done:{$message->n}");
    }

    /** @return array{calls: int, done: int, retries: int, attempts: int} */
    public static function record(int $n): array
    {
        return [
            'calls' => (int) ephpm_kv_get("sm:calls:$n"),
            'done' => (int) ephpm_kv_get("sm:done:$n"),
            'retries' => (int) ephpm_kv_get("sm:retries:$n"),  // RedeliveryStamp of the handled envelope
            'attempts' => (int) ephpm_kv_get("sm:attempts:$n"), // the engine's deliveries of it
        ];
    }
}
