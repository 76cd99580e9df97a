--TEST--
Leader::campaign(autoRenew: true): a leader working 3x its TTL stays leader and no rival wins; resign() stops the renewal and frees the election; without autoRenew the same work loses it
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('its point is a TTL running out, which valgrind slows several-fold; leader_campaign and leader_destructor_resigns run the Leader under valgrind, lock_watchdog_renews the watchdog'); ?>
--FILE--
<?php
declare(strict_types=1);
require_once __DIR__ . '/mode.inc';
// etcd leases are whole seconds: the same test at 1 s
$ttl = ephpm_test_on_etcd() ? 1.0 : 0.3;
$e = 'leader-autorenew:' . getmypid();
$leader = Ephpm\Leader::campaign($e, 'me', $ttl, 0, true);
for ($i = 0; $i < 6; $i++) {
    usleep((int)($ttl * 1e6 / 2)); // 3 TTLs of work in all
    if ($rival = Ephpm\Leader::campaign($e, 'rival', 30)) {
        echo "rival elected after ", ($i + 1) / 2, " TTLs\n";
        $rival->resign();
    }
}
var_dump($leader->isLeader(), $leader->remaining() > 0, Ephpm\Leader::current($e)['value']);
$record = ephpm_kv_get($e); // the record the watchdog renews
var_dump($leader->resign(), ephpm_kv_exists($e));
// Nothing renews it any more: put the record back with a long TTL (10 s:
// etcd reads whole seconds), which a running watchdog would cut to $ttl.
ephpm_kv_set($e, $record, 10);
usleep((int)($ttl * 1e6));
var_dump(ephpm_kv_ttl($e) > 5, $leader->isLeader());
ephpm_kv_del($e);

// The control: without autoRenew the same work loses the leadership.
$plain = Ephpm\Leader::campaign($e, 'me', $ttl);
ephpm_wait_expiry($e, $ttl, 3 * $ttl);
$rival = Ephpm\Leader::campaign($e, 'rival', 30);
var_dump($rival?->value, $plain->isLeader());
$rival?->resign();
?>
--EXPECT--
bool(true)
bool(true)
string(2) "me"
bool(true)
bool(false)
bool(true)
bool(false)
string(5) "rival"
bool(false)
