--TEST--
A full store throws Ephpm\KvException (never false from setnx), evicts nothing, reclaims expired entries first
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
ephpm.memory_limit=64K
ephpm.compress_min=0
; ephpm.memory_limit is the in-process map's limit
ephpm.shm_size=0
--FILE--
<?php
ephpm_kv_set('lock', 'holder-token', 60);
$value = str_repeat('x', 10000);
$stored = 0;
try {
    for ($i = 0; $i < 100; $i++) {
        ephpm_kv_set("k$i", $value);
        $stored++;
    }
} catch (Ephpm\KvException $e) {
    echo get_class($e), ' code ', $e->getCode(), ': ', $e->getMessage(), "\n";
}
var_dump($stored > 0 && $stored < 7);
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
--EXPECTF--
Ephpm\KvException code 6: ephpm-kv: store full: writing %d bytes would pass memory_limit of 65536 bytes (%d used); raise ephpm.memory_limit, give entries a TTL, or delete what is no longer needed
bool(true)
setnx threw: store full
string(12) "holder-token"
bool(true)
int(2)
bool(true)
