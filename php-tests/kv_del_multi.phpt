--TEST--
ephpm_kv_del_multi(): deletes the keys named and counts the live ones that went (absent and expired count nothing, a key named twice once); bad keys are TypeError / ValueError before anything is deleted
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
ephpm_kv_set('dm:a', 'alpha');
ephpm_kv_set('123', 'numeric');                   // an int key, as in any PHP array
ephpm_kv_set('dm:keep', 'kept');
ephpm_kv_set('dm:gone', 'x', 1);
ephpm_wait_expiry('dm:gone', 1, 1.2);
var_dump(ephpm_kv_del_multi(['dm:a', 'dm:missing', '123', 'dm:gone', 'dm:a']));
var_dump(ephpm_kv_get('dm:a'), ephpm_kv_get('123'), ephpm_kv_get('dm:keep'));
var_dump(ephpm_kv_del_multi([]), ephpm_kv_del_multi(['dm:none']));
foreach ([['dm:keep', 7], ['dm:keep', ''], ['dm:keep', str_repeat('k', 65537)]] as $keys) {
    try {
        ephpm_kv_del_multi($keys);
    } catch (TypeError|ValueError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
var_dump(ephpm_kv_get('dm:keep'));
var_dump(ephpm_kv_del_multi(['dm:keep']), ephpm_kv_get('dm:keep'));
?>
--EXPECT--
int(2)
NULL
NULL
string(4) "kept"
int(0)
int(0)
TypeError: ephpm_kv_del_multi(): Argument #1 ($keys) must contain only strings, int given
ValueError: ephpm_kv_del_multi(): Argument #1 ($keys) must not contain an empty key
ValueError: ephpm_kv_del_multi(): Argument #1 ($keys) must not contain a key longer than 65536 bytes
string(4) "kept"
int(1)
NULL
