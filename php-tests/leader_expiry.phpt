--TEST--
Ephpm\Leader: a leadership not renewed ends with its TTL (isLeader() false, current() null), another campaign wins it with a larger term, and the old leader's refresh() and resign() then return false and leave the new one alone; refresh() before the end keeps it
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('its point is a TTL running out, which valgrind slows several-fold; leader_campaign and leader_destructor_resigns run the Leader under valgrind, lock_watchdog_renews the watchdog'); ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
// etcd leases are whole seconds: the same test at 1 s
$ttl = ephpm_test_on_etcd() ? 1.0 : 0.3;
$e = 'leader-expiry:' . getmypid();
$a = Ephpm\Leader::campaign($e, 'a', $ttl);
var_dump($a->isLeader());
ephpm_wait_expiry($e, $ttl, $ttl + 0.1);
var_dump($a->isLeader(), $a->remaining(), Ephpm\Leader::current($e));
$b = Ephpm\Leader::campaign($e, 'b', 30);
var_dump($b instanceof Ephpm\Leader && $b->term > $a->term);
var_dump($a->refresh(), $a->refresh(30), $a->resign());
var_dump($b->isLeader(), Ephpm\Leader::current($e)['value'], $b->remaining() > 20);
var_dump($b->resign());

// The control: renewed before its TTL ends, the leadership outlives it.
$c = Ephpm\Leader::campaign($e, 'c', $ttl);
var_dump($c->refresh(30));
usleep((int) (($ttl + 0.2) * 1e6));
var_dump($c->isLeader(), Ephpm\Leader::campaign($e, 'd', 30));
var_dump($c->refresh(), $c->remaining() <= $ttl);            // back to the campaign TTL
var_dump($c->resign());
?>
--EXPECT--
bool(true)
bool(false)
float(0)
NULL
bool(true)
bool(false)
bool(false)
bool(false)
bool(true)
string(1) "b"
bool(true)
bool(true)
bool(true)
bool(true)
NULL
bool(true)
bool(true)
bool(true)
