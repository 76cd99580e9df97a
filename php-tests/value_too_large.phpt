--TEST--
A value over ephpm.max_value_size throws and leaves the old value in place
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['server'], 'ephpm.max_value_size does not reach a server (server_value_too_large covers its --max-value-size)'); ?>
--INI--
ephpm.max_value_size=1K
--FILE--
<?php
ephpm_kv_set('k', 'old');
try {
    ephpm_kv_set('k', str_repeat('x', 1025));
} catch (Ephpm\KvException $e) {
    echo $e->getCode(), ': ', $e->getMessage(), "\n";
}
var_dump(ephpm_kv_get('k'));
var_dump(ephpm_kv_set('k', str_repeat('x', 1024)));
?>
--EXPECT--
4: ephpm-kv: value is too large: 1025 bytes, max_value_size is 1024; raise ephpm.max_value_size or store smaller values
string(3) "old"
bool(true)
