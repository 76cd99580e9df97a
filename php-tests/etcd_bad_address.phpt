--TEST--
A malformed etcd:// address is Ephpm\KvException CONFIG, saying the form it wants
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_run_once('sets its own ephpm.server');
ephpm_skip_under_valgrind("memcheck's library is built without the etcd engine"); ?>
--INI--
ephpm.server=etcd://no-port
--FILE--
<?php
try {
    ephpm_kv_get('k');
    echo "no exception\n";
} catch (Ephpm\KvException $e) {
    var_dump($e->getCode() === Ephpm\KvException::CONFIG, str_contains($e->getMessage(), 'etcd://host1:port1'));
}
?>
--EXPECT--
bool(true)
bool(true)
