--TEST--
session.lazy_write: unchanged data is not rewritten but its TTL is renewed (update_timestamp)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
session.lazy_write=1
session.gc_maxlifetime=300
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
$id = 'lazy' . str_repeat('h', 28);
ephpm_kv_set("session:$id", 'a|i:1;', 5);
session_id($id);
session_start();
// someone changes the stored value under us; a lazy, unchanged session must not overwrite it
ephpm_kv_set("session:$id", 'a|i:2;', 5);
session_write_close();
var_dump(ephpm_kv_get("session:$id"));
$ttl = ephpm_kv_ttl("session:$id");
var_dump($ttl > 299 - ephpm_test_ttl_slack() && $ttl <= 300);
?>
--EXPECT--
string(6) "a|i:2;"
bool(true)
