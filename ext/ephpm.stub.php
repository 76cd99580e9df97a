<?php

/** @generate-class-entries */

namespace {
    /** Null when the key is absent or expired. */
    function ephpm_kv_get(string $key): ?string {}

    function ephpm_kv_set(string $key, string $value, int|float $ttl = 0): bool {}

    /** False only when a live entry already exists. */
    function ephpm_kv_setnx(string $key, string $value, int|float $ttl = 0): bool {}

    function ephpm_kv_del(string $key): int {}

    /** Deletes only while the live value equals $token, in one atomic step. */
    function ephpm_kv_del_if_eq(string $key, string $token): bool {}

    function ephpm_kv_exists(string $key): bool {}

    function ephpm_kv_expire(string $key, int|float $ttl): bool {}

    /** Renews the TTL only while the live value equals $token (owner-only lease renewal). */
    function ephpm_kv_expire_if_eq(string $key, string $token, int|float $ttl): bool {}

    /** Seconds left; -1 when the key never expires, -2 when it is missing. */
    function ephpm_kv_ttl(string $key): float|int {}

    /** $ttl applies only when the counter is created. */
    function ephpm_kv_incr(string $key, int $by = 1, int|float $ttl = 0): int {}

    function ephpm_kv_flush(): bool {}

    /** @return array<string, int|string> */
    function ephpm_kv_stats(): array {}

    /**
     * Records $fence for $resource. True when it is at least the highest fence
     * seen for $resource (go ahead), false when it is stale (a newer holder
     * has acted: do not write).
     */
    function ephpm_kv_fence(string $resource, int $fence): bool {}
}

namespace Ephpm {
    /** A store failure: full, value too large, library unavailable, used after fork. */
    class KvException extends \RuntimeException {}

    /** Lock::run() could not acquire the lock within its wait. */
    class LockTimeoutException extends \RuntimeException {}

    /**
     * A lease on a name: random token, compare-and-delete release, owner-only
     * renewal, and a fencing token for work that must never run twice.
     *
     * @strict-properties
     * @not-serializable
     */
    final class Lock
    {
        /** The lock's key. */
        public readonly string $name;
        /** Random 128-bit token, hex: the value stored under $name. */
        public readonly string $token;
        /** Strictly greater than every fence issued before it. */
        public readonly int $fence;

        private function __construct() {}

        /** Tries until $wait seconds pass; null if not acquired. */
        public static function acquire(string $name, float $ttl = 30, float $wait = 0): ?Lock {}

        /** Acquires (or throws LockTimeoutException), runs $fn($lock), always releases. */
        public static function run(string $name, callable $fn, float $ttl = 30, float $wait = 0): mixed {}

        /** Owner-only renewal to $ttl seconds (default: the acquire TTL); false if lost. */
        public function refresh(?float $ttl = null): bool {}

        /** Compare-and-delete; false when it was no longer ours or already released. */
        public function release(): bool {}

        /** Still ours and not expired. */
        public function isAcquired(): bool {}

        /** Seconds left; 0.0 when lost or released. */
        public function remaining(): float {}
    }
}
