--TEST--
The session lock value is a random 32-char hex token, not a constant
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
--FILE--
<?php
$tokens = [];
for ($i = 0; $i < 2; $i++) {
    session_id('sameid' . str_repeat('a', 26));
    session_start();
    $tokens[] = ephpm_kv_get('session_lock:' . session_id());
    session_write_close();
}
var_dump((bool)preg_match('/^[0-9a-f]{32}$/', $tokens[0]), (bool)preg_match('/^[0-9a-f]{32}$/', $tokens[1]));
var_dump($tokens[0] !== $tokens[1]);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
