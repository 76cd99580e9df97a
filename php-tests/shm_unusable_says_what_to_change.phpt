--TEST--
A shared segment that cannot be used (mapping refused at startup, a segment of another layout, someone else's data under the name) is Ephpm\KvException CONFIG on first use, never false from setnx, and the message says which setting or file to change
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is on the Go side (its settings parsed and refused there); the C side only passes the setting, as every test under valgrind does'); ephpm_run_once('its children choose their engines'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
$try = 'try { var_dump(ephpm_kv_setnx("lock", "t", 60)); } catch (Ephpm\KvException $e) {
    echo $e->getCode() === Ephpm\KvException::CONFIG ? "CONFIG: " : "code {$e->getCode()}: ", $e->getMessage(), "\n"; }';
// 128 TiB: more than any machine lets one mapping have, so MINIT's mmap fails.
echo ephpm_child('', $try, ['ephpm.shm_size' => '131072G']), "\n";
$name = ephpm_test_shm_name();
echo ephpm_shm_child($name, '4M', 'var_dump(ephpm_kv_set("k", "v"));'), "\n";
$f = fopen("/dev/shm$name", 'r+');
fseek($f, 8);          // the header's layout version word
fwrite($f, "\x63");    // a segment made by a later (or older) ephpm-kv
fclose($f);
echo ephpm_shm_child($name, '4M', $try), "\n";
file_put_contents("/dev/shm$name", str_repeat("\xa5", 4 << 20)); // not ours at all
echo ephpm_shm_child($name, '4M', $try), "\n";
// The longest name, of another size: the message is whole.
$long = '/' . substr(ltrim(ephpm_test_shm_name(), '/') . str_repeat('n', 254), 0, 254);
register_shutdown_function(fn () => @unlink("/dev/shm$long"));
ephpm_shm_child($long, '4M', 'ephpm_kv_set("k", "v");');
echo substr(ephpm_shm_child($long, '8M', $try), -60), "\n";
// phpinfo's row has room for it too, beside the largest size (before first use: nothing is mapped).
echo ephpm_shm_child($long, '131072G', 'ob_start(); phpinfo(INFO_MODULES); preg_match("/^Shared segment => (.*)$/m", ob_get_clean(), $m);
    echo $m[1];') === "140737488355328 bytes, named $long (opened on first use)" ? "phpinfo names it whole\n" : "phpinfo cuts it\n";
?>
--EXPECTF--
CONFIG: ephpm-kv: the shared memory segment (ephpm.shm_size, ephpm.shm_name) cannot be used: cannot map 140737488355328 bytes of shared memory: %s; lower ephpm.shm_size, or set it to 0 for a store in each process
bool(true)
CONFIG: ephpm-kv: the library refused its configuration: shared segment of 4194304 bytes: shm: incompatible segment: segment formatted by layout v99 for 4 MiB; this process wants v%d / 4 MiB; every process that shares the segment must run the same ephpm-kv build: stop them and remove /dev/shm/ephpm-phpt-%s, or set another ephpm.shm_name
CONFIG: ephpm-kv: the library refused its configuration: shared segment of 4194304 bytes: shm: incompatible segment: the segment is not an ephpm-kv segment (magic %s); this process wants layout v%d / 4 MiB; every process that shares the segment must run the same ephpm-kv build: stop them and remove /dev/shm/ephpm-phpt-%s, or set another ephpm.shm_name
%s) while no process uses it
phpinfo names it whole
