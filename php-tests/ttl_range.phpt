--TEST--
Every TTL over the whole int and float range is refused with a ValueError that says why (the maximum, when too large) or honoured: key present, ttl() within the clock's resolution (1 ns in-process, 1 ms on the wire to a server)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/ttl_range.inc';
require __DIR__ . '/mode.inc';
// ns clock in-process (floats near the maximum are 4.8e-7 s apart); ms on
// the wire to a server, rounded up, and PTTL rounds to the nearest ms; whole
// seconds, truncated, on etcd, with fewer random inputs (each a few round
// trips through consensus; the boundary values all stay)
if (ephpm_test_on_etcd()) {
    ttl_range_check(1.0, 15);
} else {
    ttl_range_check(ephpm_test_mode() === 'server' ? 0.002 : 2e-6);
}
?>
--EXPECT--
ephpm_kv_set: ok
ephpm_kv_setnx: ok
ephpm_kv_add: ok
ephpm_kv_incr: ok
ephpm_kv_expire: ok
ephpm_kv_expire_if_eq: ok
Lock::acquire: ok
Lock::refresh: ok
