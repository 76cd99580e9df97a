--TEST--
A full named segment throws Ephpm\KvException FULL saying how to give it another size: the segment outlives the processes, so a restart alone keeps the old size (and then refuses the new one)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('its children choose their engines'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
$name = ephpm_test_shm_name();
echo ephpm_shm_child($name, '1M', '
try {
    for ($i = 0; $i < 1000; $i++) {
        ephpm_kv_set("k$i", random_bytes(10000)); // incompressible
    }
} catch (Ephpm\KvException $e) {
    echo $e->getCode() === Ephpm\KvException::FULL ? "FULL: " : "code {$e->getCode()}: ", $e->getMessage(), "\n";
}'), "\n";
?>
--EXPECTF--
FULL: ephpm-kv: store full: %s; raise ephpm.shm_size: stop every process that shares the segment, remove it (/dev/shm/ephpm-phpt-%s), and start them with the new size; or give entries a TTL, or delete what is no longer needed
