--TEST--
A overruns its lease, B acquires, A releases, C tries: del lets C in, del_if_eq does not
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
foreach (['del', 'del_if_eq'] as $release) {
    ephpm_kv_flush();
    echo "release with $release\n";
    var_dump(ephpm_kv_setnx('lock', 'A', 0.2));  // A: 0.2 s lease
    ephpm_wait_expiry('lock', 0.2, 0.3);           // A overruns it
    var_dump(ephpm_kv_setnx('lock', 'B', 30));    // B acquires the expired lock
    var_dump($release === 'del' ? ephpm_kv_del('lock') : ephpm_kv_del_if_eq('lock', 'A'));
    var_dump(ephpm_kv_setnx('lock', 'C', 30));    // C tries
    echo 'holder: ', ephpm_kv_get('lock'), "\n";
}
?>
--EXPECT--
release with del
bool(true)
bool(true)
int(1)
bool(true)
holder: C
release with del_if_eq
bool(true)
bool(true)
bool(false)
bool(false)
holder: B
