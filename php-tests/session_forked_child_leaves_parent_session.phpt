--TEST--
A child forked with the session open ends quietly when it changed nothing (no exception from the timestamp update or close), and never releases the parent's session lock
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.lazy_write=1
--FILE--
<?php
session_id('forkedsession');
session_start();
$_SESSION['n'] = 1;
session_write_close();
session_start(); // unchanged from here on: lazy_write updates the timestamp
$pid = pcntl_fork();
if ($pid === 0) {
    echo "child ends\n";
    exit(0);
}
pcntl_waitpid($pid, $status);
echo 'parent: lock still held: ', var_export(ephpm_kv_exists('session_lock:forkedsession'), true), "\n";
$_SESSION['n']++;
session_write_close();
echo 'parent: released: ', var_export(!ephpm_kv_exists('session_lock:forkedsession'), true),
    ', data: ', ephpm_kv_get('session:forkedsession'), "\n";
?>
--EXPECT--
child ends
parent: lock still held: true
parent: released: true, data: n|i:2;
