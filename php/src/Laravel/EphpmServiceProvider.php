<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Laravel;

use Illuminate\Cache\CacheManager;
use Illuminate\Support\ServiceProvider;

/**
 * Registers the 'ephpm' cache driver. In config/cache.php:
 *
 *     'stores' => ['ephpm' => ['driver' => 'ephpm']],   // 'prefix' => '...' optional
 *
 * The store's prefix is the store's 'prefix', else cache.prefix, as for
 * Laravel's own drivers. The engine (shared segment, in-process map or
 * server) is the extension's ini (ephpm.*), not this config.
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
    }
}
