<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Laravel;

use Illuminate\Queue\Connectors\ConnectorInterface;

/**
 * The 'ephpm' queue driver's connector. In config/queue.php:
 *
 *     'connections' => ['ephpm' => [
 *         'driver' => 'ephpm',
 *         'queue' => 'default',
 *         'retry_after' => 90,      // seconds a popped job is invisible; longer than any job runs
 *         // 'max_attempts' => 1000, // deliveries before the engine parks a job on its dead list
 *         // 'block_for' => 0,       // seconds pop() waits for a job
 *         // 'after_commit' => false,
 *     ]],
 */
class EphpmConnector implements ConnectorInterface
{
    /**
     * @param array<string, mixed> $config
     * @return EphpmQueue
     */
    public function connect(array $config)
    {
        return new EphpmQueue(
            (string) ($config['queue'] ?? 'default'),
            (float) ($config['retry_after'] ?? 90),
            (int) ($config['max_attempts'] ?? EphpmQueue::DEFAULT_MAX_ATTEMPTS),
            (float) ($config['block_for'] ?? 0),
            isset($config['after_commit']) ? (bool) $config['after_commit'] : null
        );
    }
}
