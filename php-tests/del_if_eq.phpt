--TEST--
ephpm_kv_del_if_eq deletes only while the live value equals the token
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
ephpm_kv_set('lock', 'token-1');
var_dump(ephpm_kv_del_if_eq('lock', 'token-2'));
var_dump(ephpm_kv_del_if_eq('lock', 'token-'));   // a prefix is not equal
var_dump(ephpm_kv_del_if_eq('lock', 'token-10')); // nor a longer string
var_dump(ephpm_kv_get('lock'));
var_dump(ephpm_kv_del_if_eq('lock', 'token-1'));
var_dump(ephpm_kv_get('lock'));
var_dump(ephpm_kv_del_if_eq('lock', 'token-1'));  // already gone
ephpm_kv_set('short', 'tok', 0.05);
ephpm_wait_expiry('short', 0.05, 0.1);
var_dump(ephpm_kv_del_if_eq('short', 'tok'));     // expired never matches
?>
--EXPECT--
bool(false)
bool(false)
bool(false)
string(7) "token-1"
bool(true)
NULL
bool(false)
bool(false)
