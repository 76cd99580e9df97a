--TEST--
ephpm_kv_expire_if_eq renews a lease for its owner only
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_on_etcd('its point is a 0.2 s lease renewed past its end, which on etcd takes a wait of seconds (lock_refresh covers renewal and a lost lease there)'); ?>
--FILE--
<?php
ephpm_kv_set('lock', 'mine', 0.2);
var_dump(ephpm_kv_expire_if_eq('lock', 'theirs', 30));
var_dump(ephpm_kv_expire_if_eq('lock', 'mine', 30));
usleep(300000);
var_dump(ephpm_kv_get('lock')); // renewed past the original 0.2 s
ephpm_kv_set('lost', 'mine', 0.05);
usleep(100000);
var_dump(ephpm_kv_expire_if_eq('lost', 'mine', 30)); // too late: the lease is gone
var_dump(ephpm_kv_exists('lost'));
var_dump(ephpm_kv_expire_if_eq('missing', 'mine', 30));
?>
--EXPECT--
bool(false)
bool(true)
string(4) "mine"
bool(false)
bool(false)
bool(false)
