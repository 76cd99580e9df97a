<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Laravel;

use Illuminate\Cache\CacheManager;
use Illuminate\Queue\QueueManager;
use Illuminate\Support\ServiceProvider;

/**
 * Registers the 'ephpm' cache driver and the 'ephpm' queue driver. In
 * config/cache.php:
 *
 *     'stores' => ['ephpm' => ['driver' => 'ephpm']],   // 'prefix' => '...' optional
 *
 * The store's prefix is the store's 'prefix', else cache.prefix, as for
 * Laravel's own drivers. In config/queue.php (EphpmConnector has the options):
 *
 *     'connections' => ['ephpm' => ['driver' => 'ephpm', 'queue' => 'default', 'retry_after' => 90]],
 *
 * The engine (shared segment, in-process map or server) is the extension's
 * ini (ephpm.*), not this config.
 */
class EphpmServiceProvider extends ServiceProvider
{
    public function register(): void
    {
        // On the manager's first resolution (or now, when it already is),
        // without resolving it early.
        $this->callAfterResolving('cache', static function (CacheManager $cache): void {
            $cache->extend('ephpm', function ($app, array $config) {
                /** @var CacheManager $this bound by extend() */
                return $this->repository(new EphpmStore((string) $this->getPrefix($config)));
            });
        });
        $this->callAfterResolving('queue', static function (QueueManager $queue): void {
            $queue->addConnector('ephpm', static fn () => new EphpmConnector());
        });
    }
}
