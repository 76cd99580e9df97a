--TEST--
ReadWriteLock and Semaphore: a refresh() the store did not answer may still have been applied (a shorter ttl): isAcquired() then asks the store with a read (EPHPM.LEASETTL, never a renewal), so it cannot move the lease back past what refresh() asked for
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own scripted server'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
require __DIR__ . '/fake_server.inc';
[$sock, $log] = ephpm_fake_server([
    'EPHPM.LEASEACQUIRE' => [':7'],
    'EPHPM.LEASERENEW' => [null], // no renewal is answered
    'EPHPM.LEASETTL' => [':-2'], // the shorter ttl was applied, and ran out
    'EPHPM.LEASERELEASE' => [':1'],
]);
echo ephpm_child("unix://$sock", <<<'PHP'
    foreach ([fn() => Ephpm\ReadWriteLock::write('doc', 30), fn() => Ephpm\Semaphore::acquire('pool', 3, 30)] as $take) {
        $held = $take();
        try {
            $held->refresh(0.2);
        } catch (Ephpm\KvException $e) {
            var_dump($e->getCode() === Ephpm\KvException::UNAVAILABLE);
        }
        // the 1 s timeout is past the 0.2 s refresh() asked for: the store
        // says the lease is gone
        try {
            var_dump($held->isAcquired());
        } catch (Ephpm\KvException $e) {
            echo "isAcquired() asked the store\n";
        }
        unset($held);
    }
    PHP, ['ephpm.server_timeout' => '1']), "\n";
foreach (ephpm_fake_log($log) as $args) {
    echo implode(' ', array_slice($args, 0, 4)), "\n";
}
?>
--EXPECT--
bool(true)
bool(false)
bool(true)
bool(false)
EPHPM.LEASEACQUIRE doc <token> EXCLUSIVE
EPHPM.LEASERENEW doc <token> 200
EPHPM.LEASETTL doc <token>
EPHPM.LEASERELEASE doc <token>
EPHPM.LEASEACQUIRE pool <token> PERMIT
EPHPM.LEASERENEW pool <token> 200
EPHPM.LEASETTL pool <token>
EPHPM.LEASERELEASE pool <token>
