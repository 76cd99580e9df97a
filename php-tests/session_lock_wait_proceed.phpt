--TEST--
A held session lock makes session_start wait ephpm.session_lock_wait, then proceed unlocked with a warning
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
ephpm.session_lock_wait=0.2
--FILE--
<?php
$id = 'busy' . str_repeat('c', 28);
ephpm_kv_set("session:$id", 'n|i:7;');
ephpm_kv_set("session_lock:$id", 'other-request', 30);
session_id($id);
$start = microtime(true);
var_dump(session_start());
$took = microtime(true) - $start;
var_dump($took >= 0.19 && $took < 2);
var_dump($_SESSION);
session_write_close();
var_dump(ephpm_kv_get("session_lock:$id")); // the holder's lock is untouched
?>
--EXPECTF--
Warning: session_start(): Could not lock session busycccccccccccccccccccccccccccc within 0.200 seconds (ephpm.session_lock_wait): proceeding without the lock, so a concurrent request's changes to this session may be lost in %s on line %d
bool(true)
bool(true)
array(1) {
  ["n"]=>
  int(7)
}
string(13) "other-request"
