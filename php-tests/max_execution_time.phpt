--TEST--
max_execution_time still fires while a script spins on ephpm calls (PHP's timer signal survives the Go runtime)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
max_execution_time=1
; the hard timeout (the kill, "1+N seconds ... (terminated)") counts the process's CPU
; time, which Go's threads under valgrind spend fast: the soft timeout is what this checks
hard_timeout=30
--FILE--
<?php
ephpm_kv_set('warm', 'up'); // start the Go runtime first
while (true) {
    ephpm_kv_setnx('lock', 'token', 30);
    ephpm_kv_get('lock');
    ephpm_kv_del_if_eq('lock', 'token');
}
?>
--EXPECTF--
Fatal error: Maximum execution time of 1 second exceeded in %s on line %d
