<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Laravel;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Queue\InteractsWithQueue;

/**
 * A queued job (ShouldQueue, through Laravel's CallQueuedHandler) that
 * records each run in the store, so that a worker in another process is
 * seen too: "lq:calls:N" counts its runs, "lq:done:N" its successful ones,
 * "lq:attempts:N" holds attempts() of the last run, "lq:at:N" when it last
 * succeeded, "lq:failed:N" counts failed() calls. It throws on its first
 * $fail attempts.
 */
final class RecordingJob implements ShouldQueue
{
    use InteractsWithQueue;
    use Queueable;

    public function __construct(public int $n, public int $fail = 0)
    {
    }

    public function handle(): void
    {
        ephpm_kv_incr("lq:calls:{$this->n}");
        ephpm_kv_set("lq:attempts:{$this->n}", (string) $this->attempts());
        if ($this->attempts() <= $this->fail) {
            throw new \RuntimeException("job {$this->n} fails on attempt {$this->attempts()}");
        }
        ephpm_kv_set("lq:at:{$this->n}", (string) microtime(true));
        ephpm_kv_incr("lq:done:{$this->n}");
    }

    public function failed(\Throwable $e): void
    {
        ephpm_kv_incr("lq:failed:{$this->n}");
    }

    /** @return array{calls: int, done: int, attempts: int, failed: int} */
    public static function record(int $n): array
    {
        return [
            'calls' => (int) ephpm_kv_get("lq:calls:$n"),
            'done' => (int) ephpm_kv_get("lq:done:$n"),
            'attempts' => (int) ephpm_kv_get("lq:attempts:$n"),
            'failed' => (int) ephpm_kv_get("lq:failed:$n"),
        ];
    }
}
