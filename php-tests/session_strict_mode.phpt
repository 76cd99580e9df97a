--TEST--
session.use_strict_mode: an unknown session ID is replaced (validate_sid)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
session.use_strict_mode=1
--FILE--
<?php
$known = 'known' . str_repeat('f', 27);
ephpm_kv_set("session:$known", 'a|i:1;');
session_id($known);
session_start();
var_dump(session_id() === $known, $_SESSION);
session_write_close();

session_id('attacker' . str_repeat('g', 24));
session_start();
var_dump(session_id() !== 'attacker' . str_repeat('g', 24), $_SESSION);
?>
--EXPECT--
bool(true)
array(1) {
  ["a"]=>
  int(1)
}
bool(true)
array(0) {
}
