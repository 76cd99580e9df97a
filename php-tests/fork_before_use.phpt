--TEST--
Forking before first use (the php-fpm model) with ephpm.shm_size=0: each process starts its own in-process map
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--INI--
ephpm.server=
ephpm.shm_size=0
--FILE--
<?php
$pid = pcntl_fork();
if ($pid === 0) {
    ephpm_kv_set('who', 'child');
    echo 'child sees: ', ephpm_kv_get('who'), "\n";
    exit(0);
}
pcntl_waitpid($pid, $status);
var_dump(ephpm_kv_get('who')); // maps are per process (shm_fork_shares_lock.phpt: the segment is not)
ephpm_kv_set('who', 'parent');
echo 'parent sees: ', ephpm_kv_get('who'), "\n";
?>
--EXPECT--
child sees: child
NULL
parent sees: parent
