--TEST--
A named segment larger than the room left in /dev/shm is refused at first use (its pages are reserved), not mapped to SIGBUS a worker once the arena reaches the missing pages
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('its children choose their engines');
if (!is_dir('/dev/shm') || disk_free_space('/dev/shm') === false) die('skip no /dev/shm');
if (disk_free_space('/dev/shm') > (1 << 40)) die('skip /dev/shm has more than 1 TiB free'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
$name = ephpm_test_shm_name();
$size = intdiv((int)disk_free_space('/dev/shm'), 1 << 30) + 2;
echo ephpm_shm_child($name, "{$size}G", '
try {
    ephpm_kv_set("k", "v");
    echo "mapped\n";
} catch (Ephpm\KvException $e) {
    var_dump($e->getCode() === Ephpm\KvException::CONFIG);
    echo $e->getMessage(), "\n";
}'), "\n";
var_dump(file_exists("/dev/shm$name"));
?>
--EXPECTF--
bool(true)
ephpm-kv: the shared memory segment (ephpm.shm_size, ephpm.shm_name) cannot be used: cannot size the shared memory segment /ephpm-phpt-%s to %d bytes: No space left on device
bool(false)
