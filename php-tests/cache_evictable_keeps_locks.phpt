--TEST--
ephpm_kv_set(..., evictable: true) on the shared segment and the map: a cache three times the segment keeps being written, a lock and a session key taken before it stay, the stats count what was evicted, and a held write then takes the cache's memory
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['server'], 'a server\'s limit is its --memory-limit (the conformance suite covers the server; a Redis and etcd hold evictable writes)'); ?>
--INI--
ephpm.shm_size=4M
ephpm.memory_limit=4M
ephpm.compress_min=0
--FILE--
<?php
$lock = Ephpm\Lock::acquire('cache:lock', 300);
ephpm_kv_set('sess:abc', str_repeat('s', 500));
$page = str_repeat('p', 1000);
for ($i = 0; $i < 12000; $i++) {                  // about 3 x 4 MiB
    ephpm_kv_set("page:$i", $page, 0, true);
}
$st = ephpm_kv_stats();
var_dump($st['evicted'] > 5000, $st['bytes_evictable'] > 0, $st['bytes_evictable'] <= $st['bytes_used']);
var_dump($lock->isAcquired(), strlen(ephpm_kv_get('sess:abc')));
var_dump(ephpm_kv_get('page:11999') === $page);   // the newest is there
// A held write evicts the cache: held data can use the whole segment.
for ($i = 0; $i < 3000; $i++) {
    ephpm_kv_set("held:$i", $page);
}
var_dump(ephpm_kv_get('held:0') === $page, $lock->release());
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
int(500)
bool(true)
bool(true)
bool(true)
