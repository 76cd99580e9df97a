--TEST--
Ephpm\Lock::acquireAll: a store failure midway (store full) throws Ephpm\KvException, never null, and releases the members already taken
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['server', 'shm'], 'ephpm.memory_limit limits only the in-process map (store_full covers the others)'); ?>
--INI--
ephpm.memory_limit=64K
ephpm.compress_min=0
--FILE--
<?php
// ls:a fits, then the 40 KB name of the second member does not: the store
// is full when the set is half taken.
ephpm_kv_set('ls:fill', str_repeat('x', 30000));
$big = 'ls:b' . str_repeat('y', 40000);
try {
    var_dump(Ephpm\Lock::acquireAll(['ls:c', $big, 'ls:a'], 30));
} catch (Ephpm\KvException $e) {
    var_dump($e->getCode() === Ephpm\KvException::FULL);
}
var_dump(ephpm_kv_exists('ls:a'), ephpm_kv_exists($big), ephpm_kv_exists('ls:c'));
?>
--EXPECT--
bool(true)
bool(false)
bool(false)
bool(false)
