--TEST--
Every TTL over the whole int and float range is refused with a ValueError that says why (the maximum, when too large) or honoured: key present, ttl() within the clock's resolution
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/ttl_range.inc';
ttl_range_check(2e-6); // ns clock; floats near the maximum are 4.8e-7 s apart
?>
--EXPECT--
ephpm_kv_set: ok
ephpm_kv_setnx: ok
ephpm_kv_incr: ok
ephpm_kv_expire: ok
ephpm_kv_expire_if_eq: ok
Lock::acquire: ok
Lock::refresh: ok
