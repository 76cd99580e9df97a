--TEST--
Engine selection: ephpm.server set -> server, else ephpm.shm_size > 0 (the default) -> shm, shm_size=0 -> map; stats and phpinfo say which
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$sock = ephpm_test_server();
$show = 'ephpm_kv_set("k", "v"); $s = ephpm_kv_stats(); ob_start(); phpinfo(INFO_MODULES);
preg_match("/^Store => (\w+)/m", ob_get_clean(), $m); echo $s["engine"], " ", $m[1], " ", $s["bytes_limit"];';
echo ephpm_child('', $show, ['ephpm.memory_limit' => '2M']), "\n"; // the default: 64M
echo ephpm_child('', $show, ['ephpm.shm_size' => '8M']), "\n";
echo ephpm_child('', $show, ['ephpm.shm_size' => '0', 'ephpm.memory_limit' => '2M']), "\n";
echo ephpm_child("unix://$sock", $show, ['ephpm.shm_size' => '8M']), "\n";
?>
--EXPECTF--
shm shm %d
shm shm %d
map map 2097152
server server %d
