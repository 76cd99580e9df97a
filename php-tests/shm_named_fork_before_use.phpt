--TEST--
A CLI script on a named segment that forks before first use: parent and child each open the segment and share it; a child forked after first use cannot use the store (UNAVAILABLE)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('its child chooses its engine');
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
$name = ephpm_test_shm_name();
echo ephpm_shm_child($name, '4M', '
$pid = pcntl_fork();
if ($pid === 0) {
    var_dump(ephpm_kv_setnx("cron", "child", 60));
    exit(0);
}
pcntl_waitpid($pid, $status);
var_dump(ephpm_kv_setnx("cron", "parent", 60), ephpm_kv_get("cron"));
if (($pid = pcntl_fork()) === 0) {
    try {
        ephpm_kv_get("cron");
    } catch (Ephpm\KvException $e) {
        echo "child after first use: ", $e->getCode() === Ephpm\KvException::UNAVAILABLE ? "UNAVAILABLE" : $e->getCode(), "\n";
    }
    exit(0);
}
pcntl_waitpid($pid, $status);'), "\n";
echo ephpm_shm_child($name, '4M', 'var_dump(ephpm_kv_get("cron"));'), "\n";
?>
--EXPECT--
bool(true)
bool(false)
string(5) "child"
child after first use: UNAVAILABLE
string(5) "child"
