--TEST--
ReadWriteLock and Semaphore holders at the end of a request whose store stopped answering: one release waits ephpm.server_timeout and warns, the rest are not tried and are counted in one warning, after a fatal error or a normal end
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own scripted server'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
require __DIR__ . '/fake_server.inc';
[$sock, $log] = ephpm_fake_server([
    'EPHPM.LEASEACQUIRE' => [':7'],
    'EPHPM.LEASERELEASE' => [null], // never answered
]);
// The scripted server is a PHP process: under memcheck (which traces it) an
// acquisition's answer outlasted 0.3 s with 3 tests at a time.
$timeout = getenv('EPHPM_TEST_VALGRIND') ? '3' : '0.3';
foreach (['fatal' => "error_reporting(E_ALL & ~E_DEPRECATED); trigger_error('giving up', E_USER_ERROR);", 'normal end' => ''] as $how => $end) {
    echo "== $how\n";
    echo ephpm_child("unix://$sock", <<<PHP
        \$held = [];
        for (\$i = 0; \$i < 3; \$i++) {
            \$held[] = Ephpm\ReadWriteLock::read("r\$i");
            \$held[] = Ephpm\Semaphore::acquire("s\$i", 2);
        }
        $end
        PHP, ['ephpm.server_timeout' => $timeout]), "\n";
}
?>
--EXPECTF--
== fatal
Fatal error: giving up in %s

Warning: PHP Request Shutdown: Could not release Ephpm\%s "%s" at the end of the request: %sin time%s

Warning: PHP Request Shutdown: 5 more locks or leases were not released at the end of the request: the store did not answer; they are freed when their TTL runs out in Unknown on line 0
== normal end
Warning: PHP Request Shutdown: Could not release Ephpm\%s "%s" on destruction: %sin time%s

Warning: PHP Request Shutdown: 5 more locks or leases were not released at the end of the request: the store did not answer; they are freed when their TTL runs out in Unknown on line 0
