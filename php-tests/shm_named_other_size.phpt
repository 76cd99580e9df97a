--TEST--
A named segment of another size is refused with a clear Ephpm\KvException (CONFIG) on first use, never reattached; PHP still starts
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is on the Go side (its settings parsed and refused there); the C side only passes the setting, as every test under valgrind does'); ephpm_run_once('its children choose their engines'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
$name = ephpm_test_shm_name();
echo ephpm_shm_child($name, '4M', 'var_dump(ephpm_kv_set("k", "v"));'), "\n";
var_dump(filesize("/dev/shm$name"), decoct(fileperms("/dev/shm$name") & 0777));
echo ephpm_shm_child($name, '8M', '
echo "started\n";
for ($i = 0; $i < 2; $i++) {
    try {
        ephpm_kv_get("k");
    } catch (Ephpm\KvException $e) {
        var_dump($e->getCode() === Ephpm\KvException::CONFIG);
        echo $e->getMessage(), "\n";
    }
}'), "\n";
var_dump(filesize("/dev/shm$name"));
echo ephpm_shm_child($name, '4M', 'var_dump(ephpm_kv_get("k"));'), "\n";
?>
--EXPECTF--
bool(true)
int(4194304)
string(3) "600"
started
bool(true)
ephpm-kv: the shared memory segment (ephpm.shm_size, ephpm.shm_name) cannot be used: the shared memory segment /ephpm-phpt-%s is 4194304 bytes, but ephpm.shm_size is 8388608: give every process that shares it the same ephpm.shm_size, or remove the segment (/dev/shm/ephpm-phpt-%s) while no process uses it
bool(true)
ephpm-kv: the shared memory segment (ephpm.shm_size, ephpm.shm_name) cannot be used: the shared memory segment /ephpm-phpt-%s is 4194304 bytes, but ephpm.shm_size is 8388608: give every process that shares it the same ephpm.shm_size, or remove the segment (/dev/shm/ephpm-phpt-%s) while no process uses it
int(4194304)
string(1) "v"
