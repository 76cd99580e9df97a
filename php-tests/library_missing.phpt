--TEST--
A missing library is an Ephpm\KvException that says what to do, on every call
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
ephpm.library=/nonexistent/libephpm_kv.so
--FILE--
<?php
for ($i = 0; $i < 2; $i++) {
    try {
        ephpm_kv_setnx('lock', 'token');
    } catch (Ephpm\KvException $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
?>
--EXPECT--
Ephpm\KvException: ephpm-kv: cannot load the library /nonexistent/libephpm_kv.so: /nonexistent/libephpm_kv.so: cannot open shared object file: No such file or directory (build it with `make`, or set ephpm.library to its path)
Ephpm\KvException: ephpm-kv: cannot load the library /nonexistent/libephpm_kv.so: /nonexistent/libephpm_kv.so: cannot open shared object file: No such file or directory (build it with `make`, or set ephpm.library to its path)
