--TEST--
ephpm_kv_get_multi(): key => value for the keys found, in the order asked, misses and expired keys left out, values of any size; bad keys are TypeError / ValueError before the store is asked
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
ephpm_kv_set('gm:a', 'alpha');
ephpm_kv_set('gm:big', str_repeat('b', 100000));  // more than the first buffer
ephpm_kv_set('123', 'numeric');                   // an int key, as in any PHP array
ephpm_kv_set('gm:empty', '');
ephpm_kv_set('gm:gone', 'x', 1);
ephpm_wait_expiry('gm:gone', 1, 1.2);
$got = ephpm_kv_get_multi(['gm:big', 'gm:missing', 'gm:a', '123', 'gm:gone', 'gm:empty', 'gm:a']);
var_dump(array_keys($got), strlen($got['gm:big']), $got['gm:a'], $got[123], $got['gm:empty']);
var_dump(ephpm_kv_get_multi([]), ephpm_kv_get_multi(['gm:none']));
foreach ([['gm:a', 7], ['gm:a', ''], [str_repeat('k', 65537)]] as $keys) {
    try {
        ephpm_kv_get_multi($keys);
    } catch (TypeError|ValueError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
foreach (['gm:a', 'gm:big', '123', 'gm:empty'] as $key) {
    ephpm_kv_del($key); // the server is shared by the tests after this one (its stats too)
}
?>
--EXPECT--
array(4) {
  [0]=>
  string(6) "gm:big"
  [1]=>
  string(4) "gm:a"
  [2]=>
  int(123)
  [3]=>
  string(8) "gm:empty"
}
int(100000)
string(5) "alpha"
string(7) "numeric"
string(0) ""
array(0) {
}
array(0) {
}
TypeError: ephpm_kv_get_multi(): Argument #1 ($keys) must contain only strings, int given
ValueError: ephpm_kv_get_multi(): Argument #1 ($keys) must not contain an empty key
ValueError: ephpm_kv_get_multi(): Argument #1 ($keys) must not contain a key longer than 65536 bytes
