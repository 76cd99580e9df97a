--TEST--
Forking before first use (the php-fpm model): each process starts its own store
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
$pid = pcntl_fork();
if ($pid === 0) {
    ephpm_kv_set('who', 'child');
    echo 'child sees: ', ephpm_kv_get('who'), "\n";
    exit(0);
}
pcntl_waitpid($pid, $status);
var_dump(ephpm_kv_get('who')); // stores are per process today
ephpm_kv_set('who', 'parent');
echo 'parent sees: ', ephpm_kv_get('who'), "\n";
?>
--EXPECT--
child sees: child
NULL
parent sees: parent
