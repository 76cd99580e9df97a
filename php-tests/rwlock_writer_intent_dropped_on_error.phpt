--TEST--
ReadWriteLock::write() waiting: a try that fails with a store error (FULL) drops the writer's intent an earlier refused try recorded, as a timeout does, and throws that first error; a first try that fails sends no release; each try's intent is min(ttl, wait left + 250 ms)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own scripted server'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
require __DIR__ . '/fake_server.inc';
// The store refuses the writer (its intent recorded), then answers the
// next try with an error: readers must not stay refused for up to a ttl
// (30 s) for a writer that gave up.
[$sock, $log] = ephpm_fake_server([
    'EPHPM.LEASEACQUIRE' => [':0', "-OOM command not allowed when used memory > 'maxmemory' (store full)"],
    'EPHPM.LEASERELEASE' => [':0'],
]);
echo ephpm_child("unix://$sock", <<<'PHP'
    try {
        var_dump(Ephpm\ReadWriteLock::write('doc', 30, 2));
    } catch (Ephpm\KvException $e) {
        var_dump($e->getCode() === Ephpm\KvException::FULL);
    }
    PHP), "\n";
$sent = ephpm_fake_log($log);
foreach ($sent as $args) {
    echo implode(' ', array_slice($args, 0, 6)), "\n";
}
// The intent of each try, in ms: the wait left (2 s, less the nap) plus
// 250 ms, never more than the ttl.
$intent = (int) $sent[0][6];
var_dump($intent > 2000 && $intent <= 2250, (int) $sent[1][6] < $intent);

// A first try that fails recorded nothing: no release, so no second wait on
// a store that does not answer. The intent is at most the ttl.
[$sock, $log] = ephpm_fake_server([
    'EPHPM.LEASEACQUIRE' => ["-OOM command not allowed when used memory > 'maxmemory' (store full)"],
    'EPHPM.LEASERELEASE' => [':0'],
]);
echo ephpm_child("unix://$sock", <<<'PHP'
    try {
        var_dump(Ephpm\ReadWriteLock::write('doc', 0.5, 2));
    } catch (Ephpm\KvException $e) {
        var_dump($e->getCode() === Ephpm\KvException::FULL);
    }
    PHP), "\n";
foreach (ephpm_fake_log($log) as $args) {
    echo implode(' ', $args), "\n";
}
?>
--EXPECT--
bool(true)
EPHPM.LEASEACQUIRE doc <token> EXCLUSIVE 0 30000
EPHPM.LEASEACQUIRE doc <token> EXCLUSIVE 0 30000
EPHPM.LEASERELEASE doc <token>
bool(true)
bool(true)
bool(true)
EPHPM.LEASEACQUIRE doc <token> EXCLUSIVE 0 500 500
