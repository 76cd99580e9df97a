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
}

namespace Ephpm {
    /** A store failure: full, value too large, library unavailable, used after fork. */
    class KvException extends \RuntimeException {}
}
