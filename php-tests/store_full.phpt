--TEST--
A full store throws Ephpm\KvException (never false from setnx), evicts nothing, reclaims expired entries first
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['server'], 'ephpm.memory_limit does not reach a server (server_store_full covers its --memory-limit)'); ?>
--INI--
ephpm.memory_limit=64K
ephpm.compress_min=0
--FILE--
<?php
require __DIR__ . '/mode.inc';
// The limit: ephpm.memory_limit (64K here) for the map, the segment
// (ephpm.shm_size, 64M by default) for shm; the hint names the right one.
$hint = ['map' => '/^ephpm-kv: store full: writing \d+ bytes would pass memory_limit of 65536 bytes \(\d+ used\); raise ephpm\.memory_limit, give entries a TTL, or delete what is no longer needed$/',
    'shm' => '/^ephpm-kv: store full: .*; raise ephpm\.shm_size \(every process that shares the segment must restart with the new size\), give entries a TTL, or delete what is no longer needed$/'][ephpm_test_mode()];
ephpm_kv_set('lock', 'holder-token', 60);
$value = str_repeat('x', 10000);
$stored = 0;
try {
    for ($i = 0; $i < 100000; $i++) {
        ephpm_kv_set("k$i", $value);
        $stored++;
    }
} catch (Ephpm\KvException $e) {
    echo get_class($e), ' code ', $e->getCode(), "\n";
    var_dump(preg_match($hint, $e->getMessage()) === 1 ?: $e->getMessage());
}
var_dump($stored > 0 && $stored * strlen($value) < (ephpm_test_mode() === 'map' ? 64 << 10 : 64 << 20));
try {
    var_dump(ephpm_kv_setnx('another-lock', $value, 60));
} catch (Ephpm\KvException $e) {
    echo "setnx threw: store full\n";
}
var_dump(ephpm_kv_get('lock'));                    // a live lock is never evicted
var_dump(ephpm_kv_get('k0') === $value);
var_dump(ephpm_kv_stats()['rejected']);
// expired entries make room before a write is refused
ephpm_kv_flush();
for ($i = 0; $i < $stored; $i++) {
    ephpm_kv_set("short$i", $value, 0.05);
}
usleep(100000);
var_dump(ephpm_kv_set('fresh', $value));
?>
--EXPECT--
Ephpm\KvException code 6
bool(true)
bool(true)
setnx threw: store full
string(12) "holder-token"
bool(true)
int(2)
bool(true)
