--TEST--
Forking before first use (the php-fpm model): each process can use the store; the in-process map is per process, the shared segment (mapped before the fork) and the server are one store for both
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
require __DIR__ . '/mode.inc';
$pid = pcntl_fork();
if ($pid === 0) {
    ephpm_kv_set('who', 'child');
    echo 'child sees: ', ephpm_kv_get('who'), "\n";
    exit(0);
}
pcntl_waitpid($pid, $status);
$seen = ephpm_kv_get('who');
$want = ephpm_test_mode() === 'map' ? null : 'child';
echo $seen === $want ? "parent after the child's write: as the mode says\n"
    : 'parent after the child\'s write in ' . ephpm_test_mode() . ' mode: ' . var_export($seen, true) . "\n";
ephpm_kv_set('who', 'parent');
echo 'parent sees: ', ephpm_kv_get('who'), "\n";
?>
--EXPECT--
child sees: child
parent after the child's write: as the mode says
parent sees: parent
