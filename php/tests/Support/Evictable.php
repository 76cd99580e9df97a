<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Support;

/**
 * Whether a bridge writes its entries as cache (evictable): the store's
 * bytes_evictable grows with them. On an engine that holds every write
 * (a Redis, etcd) there is nothing to see: the caller skips.
 */
final class Evictable
{
    /** Null when the engine has no evictable entries; else whether $write grew bytes_evictable. */
    public static function grows(callable $write): ?bool
    {
        $probe = 'evictable-probe:' . bin2hex(random_bytes(4));
        $before = ephpm_kv_stats()['bytes_evictable'];
        ephpm_kv_set($probe, 'x', 0, true);
        $probed = ephpm_kv_stats()['bytes_evictable'];
        ephpm_kv_del($probe);
        if ($probed <= $before) {
            return null;
        }
        $before = ephpm_kv_stats()['bytes_evictable'];
        $write();

        return ephpm_kv_stats()['bytes_evictable'] > $before;
    }
}
