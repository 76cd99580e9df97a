--TEST--
A process that opens a named segment while its creator is still sizing it (a large segment's pages take seconds to reserve) waits for the creator instead of refusing the segment as "0 bytes" for good
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is on the Go side (its settings parsed and refused there); the C side only passes the setting, as every test under valgrind does'); ephpm_run_once('its children choose their engines'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
$name = ephpm_test_shm_name();
// Play the creator: the segment exists, empty, locked while "sizing".
$f = fopen("/dev/shm$name", 'x+');
chmod("/dev/shm$name", 0600);
flock($f, LOCK_EX);
$cmd = [PHP_BINARY, '-n', '-d', 'extension=' . realpath(__DIR__ . '/../build/ephpm.so'),
    '-d', 'ephpm.library=' . ini_get('ephpm.library'), '-d', 'ephpm.server=',
    '-d', "ephpm.shm_name=$name", '-d', 'ephpm.shm_size=4M',
    '-r', 'try { var_dump(ephpm_kv_set("k", "v")); } catch (Ephpm\KvException $e) { echo $e->getMessage(), "\n"; }'];
$env = getenv();
unset($env['USE_ZEND_ALLOC']);
$child = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes, null, $env);
usleep(1500000);       // longer than any fixed wait would be worth
ftruncate($f, 4 << 20);
flock($f, LOCK_UN);
echo stream_get_contents($pipes[1]);
proc_close($child);
echo ephpm_shm_child($name, '4M', 'var_dump(ephpm_kv_get("k"));'), "\n";
?>
--EXPECT--
bool(true)
string(1) "v"
