<?php

// IDE stubs of the ephpm extension, for PhpStorm and PHPStan: never include
// this file. Generated from ext/ephpm.stub.php by build/gen-ide-stub.php.


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

    /**
     * "engine" is "shm" (the shared segment), "map" (in this process,
     * ephpm.shm_size=0) or "server" (ephpm.server); the rest are counts.
     * @return array<string, int|string>
     */
    function ephpm_kv_stats(): array {}

    /**
     * Records $fence for $resource. True when it is at least the highest fence
     * seen for $resource (go ahead), false when it is stale (a newer holder
     * has acted: do not write).
     */
    function ephpm_kv_fence(string $resource, int $fence): bool {}
}

namespace Ephpm {
    /**
     * A store failure. getCode() is one of the constants below, the
     * EPHPM_KV_E_* codes of the C ABI (go/capi/ephpm_kv_ops.h).
     */
    class KvException extends \RuntimeException
    {
        /**
         * A bug in ephpm-kv (a panic caught at the library's boundary, or a reply it cannot place).
         * @var int
         */
        public const INTERNAL = 1;

        /**
         * An empty key.
         * @var int
         */
        public const EMPTY_KEY = 2;

        /**
         * A key over 64 KiB.
         * @var int
         */
        public const KEY_TOO_LARGE = 3;

        /**
         * A value over ephpm.max_value_size, or over the server's --max-value-size.
         * @var int
         */
        public const VALUE_TOO_LARGE = 4;

        /**
         * A TTL the store cannot represent.
         * @var int
         */
        public const BAD_TTL = 5;

        /**
         * The store is full (ephpm.memory_limit, or the server's --memory-limit); nothing was evicted.
         * @var int
         */
        public const FULL = 6;

        /**
         * ephpm_kv_incr() on a value that is not an integer.
         * @var int
         */
        public const NOT_INTEGER = 7;

        /**
         * ephpm_kv_incr() would overflow.
         * @var int
         */
        public const OVERFLOW = 8;

        /**
         * The library refused its configuration (e.g. a malformed ephpm.server).
         * @var int
         */
        public const CONFIG = 9;

        /**
         * The store cannot be used: the library is missing, the process forked after first use, or the server cannot be reached or did not answer in time (the operation may have happened).
         * @var int
         */
        public const UNAVAILABLE = 10;
    }

    /** Lock::run() could not acquire the lock within its wait. */
    class LockTimeoutException extends \RuntimeException {}

    /**
     * A lease on a name: random token, compare-and-delete release, owner-only
     * renewal, and a fencing token for work that must never run twice.
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

        /**
         * Tries until $wait seconds pass; null if not acquired. $autoRenew: a
         * watchdog in the library renews the lock to $ttl every $ttl/3 until
         * release, the end of the request, the lock being lost, or $maxHold
         * seconds after acquisition (then it expires one $ttl later).
         */
        public static function acquire(string $name, float $ttl = 30, float $wait = 0, bool $autoRenew = false,
            float $maxHold = 300): ?Lock {}

        /**
         * Acquires every name or none: in one order (bytewise sorted), within
         * $wait seconds for the whole set; null (nothing left held) if not.
         * $names: strings, none empty or repeated.
         */
        public static function acquireAll(array $names, float $ttl = 30, float $wait = 0): ?LockSet {}

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

    /**
     * Locks on several names from Lock::acquireAll(), each member with its
     * own token and fence; released in reverse acquisition order.
     */
    final class LockSet
    {
        /**
         * The members, name => Lock, in acquisition (bytewise) order.
         * @var array<string, Lock>
         */
        public readonly array $locks;

        private function __construct() {}

        /** The member named $name; ValueError if the set has none. */
        public function get(string $name): Lock {}

        /** Renews every member still ours; true only if every one was. */
        public function refresh(?float $ttl = null): bool {}

        /** Releases every member in reverse order; true only if every one was still ours. */
        public function release(): bool {}

        /** Every member still ours and not expired. */
        public function isAcquired(): bool {}
    }
}
