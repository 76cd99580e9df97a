--TEST--
The Go library is loaded on first use, not at module startup (fork safety)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
function library_state(): string {
    ob_start();
    phpinfo(INFO_MODULES);
    preg_match('/Library state => (.*)/', ob_get_clean(), $m);
    return $m[1];
}
echo library_state(), "\n";
var_dump(ephpm_kv_get('anything'));
echo library_state(), "\n";
?>
--EXPECT--
not loaded yet in this process (loads on first use)
NULL
loaded
