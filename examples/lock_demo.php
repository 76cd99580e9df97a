<?php
// The lock bug every "lock on a KV store" tutorial ships, and its fix.
// A takes a lock with a 1 s lease and overruns it; B acquires the expired
// lock; A finishes and releases; C tries to get in while B is still working.

// A random 128-bit token per acquisition, prefixed with the holder's name
// so the demo can say who holds the lock.
function token(string $who): string
{
    return $who . ':' . bin2hex(random_bytes(16));
}

function holder(): string
{
    $h = ephpm_kv_get('lock:nightly-report');
    return $h === null ? '(nobody)' : strstr($h, ':', true);
}

function step(string $what, mixed $result): void
{
    printf("  %-34s %-6s lock holder now: %s\n", $what, var_export($result, true), holder());
}

foreach (['del', 'del_if_eq'] as $release) {
    ephpm_kv_flush();
    echo "Release with ephpm_kv_$release():\n";
    $tokenA = token('A');
    step('A acquires (1 s TTL)', ephpm_kv_setnx('lock:nightly-report', $tokenA, 1));
    usleep(1_200_000); // A's work overruns its lease
    step('B acquires (30 s TTL)', ephpm_kv_setnx('lock:nightly-report', token('B'), 30));
    step(
        "A releases with $release",
        $release === 'del'
            ? ephpm_kv_del('lock:nightly-report')
            : ephpm_kv_del_if_eq('lock:nightly-report', $tokenA)
    );
    step('C tries to acquire', ephpm_kv_setnx('lock:nightly-report', token('C'), 30));
    echo $release === 'del'
        ? "  -> A deleted B's lock and C walked in while B was still working.\n\n"
        : "  -> A's late release was a no-op; B keeps the lock and C is turned away.\n\n";
}

echo "A few other calls:\n";
ephpm_kv_flush();
ephpm_kv_incr('hits');
ephpm_kv_incr('hits');
printf("  incr('hits') three times      -> %d\n", ephpm_kv_incr('hits'));
ephpm_kv_set('greeting', 'hello', 2.5);
printf("  get('greeting')               -> %s\n", var_export(ephpm_kv_get('greeting'), true));
printf("  ttl('greeting')               -> %.2f s\n", ephpm_kv_ttl('greeting'));
ephpm_kv_set('lease', 'owner-token', 1);
printf("  expire_if_eq(stranger)        -> %s\n", var_export(ephpm_kv_expire_if_eq('lease', 'stranger', 60), true));
printf("  expire_if_eq(owner, 60 s)     -> %s\n", var_export(ephpm_kv_expire_if_eq('lease', 'owner-token', 60), true));
ephpm_kv_set('page', str_repeat('<li>cached row</li>', 5000));
$stats = ephpm_kv_stats();
printf("  stats: %d keys, %d bytes used of %d, %d compressed\n",
    $stats['keys'], $stats['bytes_used'], $stats['bytes_limit'], $stats['compressed']);
$set = Ephpm\Lock::acquireAll(['lock:invoice', 'lock:account'], 30); // one order for all callers: no deadlock
printf("  acquireAll([invoice, account]) -> took %s\n", implode(' then ', array_keys($set->locks)));
printf("  release() the set (reverse order) -> %s\n", var_export($set->release(), true));
