--TEST--
ephpm_kv_incr: atomic counter, created at 0, refuses non-integers and overflow
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
var_dump(ephpm_kv_incr('n'));
var_dump(ephpm_kv_incr('n', 41));
var_dump(ephpm_kv_incr('n', -50));
var_dump(ephpm_kv_get('n'));
ephpm_kv_set('text', 'abc');
try {
    ephpm_kv_incr('text');
} catch (Ephpm\KvException $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
var_dump(ephpm_kv_get('text'));
ephpm_kv_set('max', (string)PHP_INT_MAX);
try {
    ephpm_kv_incr('max');
} catch (Ephpm\KvException $e) {
    echo $e->getMessage(), "\n";
}
var_dump(ephpm_kv_get('max') === (string)PHP_INT_MAX);
// the ttl applies when the counter is created, not on later increments
var_dump(ephpm_kv_incr('window', 1, 0.1));
var_dump(ephpm_kv_incr('window', 1, 60));
ephpm_wait_expiry('window', 0.1, 0.15);
var_dump(ephpm_kv_incr('window', 1, 60));
?>
--EXPECTF--
int(1)
int(42)
int(-8)
string(2) "-8"
Ephpm\KvException: ephpm-kv: value is not an integer or out of range
string(3) "abc"
ephpm-kv: increment would overflow%S
bool(true)
int(1)
int(2)
int(1)
