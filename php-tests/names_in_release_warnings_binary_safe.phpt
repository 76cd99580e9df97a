--TEST--
A lock or lease that cannot be released is named whole in the warning (a NUL escaped as \x00, not the name cut there): a dropped Lock, a ReadWriteLock, and the members of a failed acquireAll()
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own scripted server'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
require __DIR__ . '/fake_server.inc';
[$sock, $log] = ephpm_fake_server([
    'EPHPM.STATS' => ['*0'], // an ephpm-kv server
    'EPHPM.SETNXFENCED' => [':5', '-ERR boom', ':6'],
    'DELIFEQ' => ['-ERR no release'],
    'EPHPM.LEASEACQUIRE' => [':7'],
    'EPHPM.LEASERELEASE' => ['-ERR no release'],
]);
echo ephpm_child("unix://$sock", <<<'PHP'
    try {
        Ephpm\Lock::acquireAll(["nm:a\0b", "nm:a\0a"]);
    } catch (Ephpm\KvException $e) {
        echo "acquireAll: ", $e->getMessage(), "\n";
    }
    $lock = Ephpm\Lock::acquire("nm:l\0ck", 30);
    unset($lock);
    $read = Ephpm\ReadWriteLock::read("nm:r\0w\n");
    unset($read);
    PHP), "\n";
?>
--EXPECTF--
Warning: Ephpm\Lock::acquireAll(): Could not release lock "nm:a\x00a" after a failed acquireAll(): ephpm-kv server at %s: ERR no release in Command line code on line %d
acquireAll: ephpm-kv: ephpm-kv server at %s: ERR boom%A

Warning: Unknown: Could not release lock "nm:l\x00ck" on destruction: ephpm-kv server at %s: ERR no release in Command line code on line %d

Warning: Unknown: Could not release Ephpm\ReadWriteLock "nm:r\x00w\n" on destruction: ephpm-kv server at %s: ERR no release in Command line code on line %d
