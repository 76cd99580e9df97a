<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Support;

/**
 * Waiting for a TTL to run out, per engine. Every engine expires on time
 * except etcd (ephpm.server=etcd://..., build/phpunit-modes.sh etcd): its
 * leases are whole seconds, ttl() reads them truncated, and a key outlives
 * its lease by up to about a second, until the leader revokes it
 * (go/etcdkv/README.md, TTLs). php-tests/mode.inc does the same for the phpt suite.
 */
final class Expiry
{
    public static function onEtcd(): bool
    {
        return str_starts_with((string) ini_get('ephpm.server'), 'etcd://');
    }

    /** How far below the exact time left ttl() may read: 1 s on etcd, 0 elsewhere. */
    public static function slack(): float
    {
        return self::onEtcd() ? 1.0 : 0.0;
    }

    /**
     * Waits past a TTL of $ttl seconds: $wait seconds (the test's own margin)
     * where expiry is on time; on etcd until $gone() says the entries are
     * gone, polled every 50 ms, at most the TTL rounded up plus 3 s, so an
     * entry that never expires still fails the test's next assertion.
     *
     * @param callable(): bool $gone
     */
    public static function waitPast(float $ttl, float $wait, callable $gone): void
    {
        if (!self::onEtcd()) {
            usleep((int) round($wait * 1e6));
            return;
        }
        $deadline = microtime(true) + max(1.0, ceil($ttl)) + 3.0;
        while (!$gone() && microtime(true) < $deadline) {
            usleep(50_000);
        }
    }
}
