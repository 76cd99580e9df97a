--TEST--
A shared object that is not an ephpm-kv library is refused with a clear message
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!file_exists('/lib/x86_64-linux-gnu/libz.so.1')) die('skip no libz.so.1 to point at'); ?>
--INI--
ephpm.library=/lib/x86_64-linux-gnu/libz.so.1
--FILE--
<?php
try {
    ephpm_kv_get('k');
} catch (Ephpm\KvException $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECTF--
ephpm-kv: /lib/x86_64-linux-gnu/libz.so.1 is not an ephpm-kv library: %sundefined symbol: ephpm_kv_get_ops
