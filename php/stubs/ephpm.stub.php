<?php

// IDE stubs of the ephpm extension, for PhpStorm and PHPStan: never include
// this file. Generated from ext/ephpm.stub.php by build/gen-ide-stub.php.


namespace {
    /** Null when the key is absent or expired. */
    function ephpm_kv_get(string $key): ?string {}

    /**
     * $evictable: cache the store may drop to make room for any write (never a
     * held entry: locks, sessions, counters, a plain set). A held entry on
     * Redis and etcd, which have no such kind.
     */
    function ephpm_kv_set(string $key, string $value, int|float $ttl = 0, bool $evictable = false): bool {}

    /**
     * Several gets in one call into the store: key => value for the keys
     * found (each a string), misses left out, as apcu_fetch() with an array.
     */
    function ephpm_kv_get_multi(array $keys): array {}

    /**
     * Several dels in one call into the store: how many of $keys were live
     * and went (a key named twice counts once), as Redis's DEL.
     */
    function ephpm_kv_del_multi(array $keys): int {}

    /**
     * The value under $key, computed by $compute($key) once across all
     * processes on a miss and stored with $ttl (evictable by default: it
     * can be computed again). Other callers sleep until it is written and
     * read it; past $wait seconds they get Ephpm\LockTimeoutException. When
     * $compute throws, its caller gets the exception and the next waiter
     * computes. $compute must return a string.
     */
    function ephpm_kv_remember(string $key, callable $compute, int|float $ttl = 0, bool $evictable = true, float $wait = 30): string {}

    /** False only when a live entry already exists. */
    function ephpm_kv_setnx(string $key, string $value, int|float $ttl = 0): bool {}

    /**
     * A cache's add (apcu_add(), Memcached::add()): setnx that can store an
     * evictable entry. False only when a live entry of either kind already
     * exists. A lock takes setnx: a lock must never be evictable.
     */
    function ephpm_kv_add(string $key, string $value, int|float $ttl = 0, bool $evictable = false): bool {}

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

    /**
     * Admits one call under $key when fewer than $limit (1 to 10000) calls
     * were admitted in the last $window seconds, in one atomic step: an
     * exact sliding window, never more than $limit in any window. A refused
     * call is not counted. "remaining": calls the window still admits;
     * "retry_after": seconds until the oldest admitted call leaves the
     * window (0.0 when allowed).
     * @return array{allowed: bool, remaining: int, retry_after: float}
     */
    function ephpm_kv_rate_limit(string $key, int $limit, int|float $window): array {}

    /**
     * One step of a walk over the store's keys, as phpredis's scan():
     * $cursor null starts the walk, each call visits up to $count keys (1
     * to 10000) and sets $cursor to where the next call goes on, "" once
     * the walk is done (a call with "" returns [] at once). Returns the live
     * keys visited that match $pattern (a Redis glob: * ? [a-z], \ quotes
     * a byte; "" every key), key => ['kind' => "value", "evictable",
     * "leases" or "ratelog", 'ttl' => seconds left, -1.0 when the key never
     * expires, 'size' => the value's bytes, 'fence' => the fence the Lock
     * holding it was issued with, for a lease set its newest holder's, 0
     * for none]. A step may return none while
     * the walk goes on: loop on $cursor, not on the result. A key there for
     * the whole walk is reported at least once, perhaps twice. A cursor
     * the engine did not return throws KvException::BAD_ARGUMENT.
     * @param-out string $cursor
     * @return array<string|int, array{kind: string, ttl: float, size: int, fence: int}>
     */
    function ephpm_kv_scan(?string &$cursor, string $pattern = '', int $count = 100): array {}
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

        /**
         * A lease or rate-limit argument the store refused (token, permits, limit).
         * @var int
         */
        public const BAD_ARGUMENT = 11;

        /**
         * The key holds another kind of value: a plain value under a ReadWriteLock, Semaphore or rate limit name, or the other family's (Redis's WRONGTYPE).
         * @var int
         */
        public const WRONG_TYPE = 12;

        /**
         * A record in the shared segment failed its checksum (something wrote into the segment): it is quarantined, unreadable, and holds its key until it expires, is overwritten or deleted.
         * @var int
         */
        public const CORRUPT = 13;
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

    /**
     * Many readers or one writer on a name, each holder a lease of its own
     * (random token, own expiry, own fence): a crashed reader blocks a
     * writer for at most its own TTL. A writer waiting with $wait > 0
     * records its intent, so new readers are refused meanwhile and a stream
     * of overlapping readers cannot starve it.
     */
    final class ReadWriteLock
    {
        /** The lock's key. */
        public readonly string $name;
        /** Random 128-bit token, hex: this holder's entry under $name. */
        public readonly string $token;
        /** Strictly greater than every fence issued before it (Locks' too). */
        public readonly int $fence;
        /** "read" or "write". */
        public readonly string $mode;

        private function __construct() {}

        /** A shared (reader) lease; tries until $wait seconds pass, null if not acquired. */
        public static function read(string $name, float $ttl = 30, float $wait = 0): ?ReadWriteLock {}

        /** The exclusive (writer) lease; tries until $wait seconds pass, null if not acquired. */
        public static function write(string $name, float $ttl = 30, float $wait = 0): ?ReadWriteLock {}

        /** Renews this holder's lease to $ttl seconds (default: the acquire TTL); false if lost. */
        public function refresh(?float $ttl = null): bool {}

        /**
         * Gives this holder's lease back; false when it was no longer held (expired,
         * or the name deleted or overwritten) or already released.
         */
        public function release(): bool {}

        /**
         * This holder's lease is live: a read of its expiry in the store, which it never
         * extends (refresh() does). False once lost or released.
         */
        public function isAcquired(): bool {}

        /**
         * Seconds left of this holder's lease (on etcd whole seconds); 0.0 when lost or
         * released. A read, as isAcquired().
         */
        public function remaining(): float {}
    }

    /**
     * A counting semaphore: at most $permits holders of a name at once, each
     * a leased permit (random token, own expiry, own fence), released by its
     * token; an expired permit is reclaimed.
     */
    final class Semaphore
    {
        /** The semaphore's key. */
        public readonly string $name;
        /** Random 128-bit token, hex: this permit's entry under $name. */
        public readonly string $token;
        /** Strictly greater than every fence issued before it (Locks' too). */
        public readonly int $fence;
        /** The semaphore's size this permit was taken with. */
        public readonly int $permits;

        private function __construct() {}

        /**
         * One of $permits (1 to 1024) permits; tries until $wait seconds
         * pass, null if not acquired.
         */
        public static function acquire(string $name, int $permits, float $ttl = 30, float $wait = 0): ?Semaphore {}

        /** How many live permits $name has now. */
        public static function holders(string $name): int {}

        /** Renews this permit to $ttl seconds (default: the acquire TTL); false if lost. */
        public function refresh(?float $ttl = null): bool {}

        /**
         * Gives this permit back; false when it was no longer held (expired, or the
         * name deleted or overwritten) or already released.
         */
        public function release(): bool {}

        /**
         * This permit is live: a read of its expiry in the store, which it never
         * extends (refresh() does). False once lost or released.
         */
        public function isAcquired(): bool {}

        /**
         * Seconds left of this permit (on etcd whole seconds); 0.0 when lost or
         * released. A read, as isAcquired().
         */
        public function remaining(): float {}
    }

    /**
     * Leader election: at most one leader of an election at a time, for its
     * TTL, with a term that is a fence (greater than every fence issued
     * before it, Locks' too). The record under $election is the leader's
     * value, term and a random token; resign() and refresh() are
     * compare-and-delete and owner-only renewal, as a Lock's.
     */
    final class Leader
    {
        /** The election's key. */
        public readonly string $election;
        /** What this leader published: current() shows it to everyone. */
        public readonly string $value;
        /** This leadership's fence: strictly greater than every earlier term. */
        public readonly int $term;

        private function __construct() {}

        /**
         * Leads $election with $value for $ttl seconds, or tries until $wait
         * seconds pass: null while someone else leads. $autoRenew renews it
         * every $ttl/3 until resign() (or the end of the request).
         */
        public static function campaign(string $election, string $value, float $ttl = 30, float $wait = 0,
            bool $autoRenew = false): ?Leader {}

        /**
         * The current leader: ['value' => string, 'term' => int, 'remaining' => float seconds], or null when
         * nobody leads.
         * @return array{value: string, term: int, remaining: float}|null
         */
        public static function current(string $election): ?array {}

        /** Still the leader: a read of its expiry, which it never extends. */
        public function isLeader(): bool {}

        /** Renews the leadership to $ttl seconds (default: the campaign TTL); false if lost. */
        public function refresh(?float $ttl = null): bool {}

        /** Steps down (compare-and-delete); false when no longer the leader. */
        public function resign(): bool {}

        /** Seconds left of the leadership; 0.0 when lost or resigned. */
        public function remaining(): float {}
    }

    /**
     * A reusable barrier: wait() returns true for all $parties callers of a
     * name together, once the last one arrives.
     */
    final class Barrier
    {
        private function __construct() {}

        /**
         * Waits until $parties (1 to 1024) callers have arrived at $name, at most
         * $timeout seconds: true when all pass, false on timeout (the arrival is
         * withdrawn, so a later round counts right).
         */
        public static function wait(string $name, int $parties, float $timeout): bool {}
    }

    /**
     * A reliable queue, at-least-once: a popped job is invisible to other
     * workers for $visibility seconds and comes back unless acknowledged;
     * after $maxAttempts deliveries it goes to the dead list.
     */
    final class Queue
    {
        public readonly string $name;
        public readonly float $visibility;
        public readonly int $maxAttempts;

        public function __construct(string $name, float $visibility = 30, int $maxAttempts = 5) {}

        /** Queues $payload, visible after $delay seconds; returns the job's id. */
        public function push(string $payload, float $delay = 0): string {}

        /** The oldest visible job, waiting up to $wait seconds for one; null if none came. */
        public function pop(float $wait = 0): ?Job {}

        /** Jobs queued, delayed or delivered and not acknowledged (the dead ones not counted). */
        public function size(): int {}

        /**
         * The dead list, oldest first: at most $limit jobs.
         * @return list<array{id: string, payload: string, attempts: int}>
         */
        public function dead(int $limit = 100): array {}

        /** Moves dead job $id (null: all of them) back to the queue with its attempts reset; how many moved. */
        public function retry(?string $id = null): int {}
    }

    /**
     * One delivery of a queued job (Queue::pop()).
     */
    final class Job
    {
        public readonly string $queue;
        public readonly string $id;
        public readonly string $payload;
        /** Deliveries of this job, this one included. */
        public readonly int $attempts;

        private function __construct() {}

        /** Done: deletes the job. False once its visibility ran out (another worker may have it). */
        public function ack(): bool {}

        /** Gives the job back, visible again after $delay seconds; false once its visibility ran out. */
        public function release(float $delay = 0): bool {}

        /** Extends the job's invisibility to the queue's visibility from now; false once it ran out. */
        public function touch(): bool {}
    }
}
