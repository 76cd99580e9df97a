--TEST--
A full shared segment throws Ephpm\KvException FULL naming ephpm.shm_size (never false from setnx), evicts nothing live, reclaims expired entries first
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
ephpm.server=
ephpm.shm_size=1M
ephpm.compress_min=0
--FILE--
<?php
ephpm_kv_set('lock', 'holder-token', 60);
$value = str_repeat('x', 10000);
$stored = 0;
try {
    for ($i = 0; $i < 1000; $i++) {
        ephpm_kv_set("k$i", $value, 0.3);
        $stored++;
    }
} catch (Ephpm\KvException $e) {
    echo get_class($e), ' code ', $e->getCode(), ': ', $e->getMessage(), "\n";
}
var_dump($stored > 10 && $stored < 105);
try {
    var_dump(ephpm_kv_setnx('another-lock', $value, 60));
} catch (Ephpm\KvException $e) {
    echo "setnx threw: store full\n";
}
var_dump(ephpm_kv_get('lock'));                    // a live lock is never evicted
$kept = 0;
for ($i = 0; $i < $stored; $i++) {
    $kept += ephpm_kv_get("k$i") === $value;
}
var_dump($kept === $stored, ephpm_kv_stats()['rejected'] >= 2);
usleep(400000);                                    // the values expire: their room is taken back
for ($i = 0; $i < $stored; $i++) {
    ephpm_kv_set("fresh$i", $value);
}
var_dump(ephpm_kv_get('lock'));
?>
--EXPECTF--
Ephpm\KvException code 6: ephpm-kv: %s; raise ephpm.shm_size (every process that shares the segment must restart with the new size), give entries a TTL, or delete what is no longer needed
bool(true)
setnx threw: store full
string(12) "holder-token"
bool(true)
bool(true)
string(12) "holder-token"
