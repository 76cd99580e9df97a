--TEST--
session.save_handler=ephpm stores data at session:<sid> and reads it back
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
--FILE--
<?php
var_dump(session_start());
$id = session_id();
$_SESSION['user'] = 42;
$_SESSION['cart'] = [1, 2];
var_dump(session_write_close());
var_dump(ephpm_kv_get("session:$id"));

$_SESSION = [];
session_id($id);
session_start();
var_dump($_SESSION);
session_write_close();
var_dump(ephpm_kv_exists("session_lock:$id")); // released on close
?>
--EXPECT--
bool(true)
bool(true)
string(37) "user|i:42;cart|a:2:{i:0;i:1;i:1;i:2;}"
array(2) {
  ["user"]=>
  int(42)
  ["cart"]=>
  array(2) {
    [0]=>
    int(1)
    [1]=>
    int(2)
  }
}
bool(false)
