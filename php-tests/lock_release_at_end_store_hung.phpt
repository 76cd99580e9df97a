--TEST--
Server mode, store not answering at the end of a request: one lock waits ephpm.server_timeout, the rest are not tried (one warning with a count), after a fatal error or a normal end; a dropped lock is tried once
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$sock = ephpm_test_server();
$pid = $GLOBALS['ephpm_test_server_pid'][$sock];
// Eight locks, then the server stops answering (SIGSTOP): each release
// tried waits the whole 0.5 s timeout and warns, so one warning is one wait
// (before: 8 in a fatal error, 16 at a normal end, destructor and free).
foreach (['fatal' => "error_reporting(E_ALL & ~E_DEPRECATED); trigger_error('giving up', E_USER_ERROR);", 'normal end' => ''] as $how => $end) {
    echo "== $how\n";
    echo ephpm_child("unix://$sock", <<<PHP
        \$locks = [];
        for (\$i = 0; \$i < 8; \$i++) {
            \$locks[] = Ephpm\Lock::acquire("$how \$i", 30);
        }
        exec('kill -STOP $pid');
        while (!preg_match('/^\\d+ \\(.*\\) T/', file_get_contents('/proc/$pid/stat'))) {
            usleep(1000);
        }
        $end
        PHP, ['ephpm.server_timeout' => '0.5']), "\n";
    exec("kill -CONT $pid");
}
// Mid-request, a lock dropped while the store does not answer is tried
// once (its destructor), not again when PHP frees it.
echo "== unset\n", ephpm_child("unix://$sock", <<<PHP
    \$lock = Ephpm\Lock::acquire('dropped', 30);
    exec('kill -STOP $pid');
    while (!preg_match('/^\\d+ \\(.*\\) T/', file_get_contents('/proc/$pid/stat'))) {
        usleep(1000);
    }
    unset(\$lock);
    exec('kill -CONT $pid');
    echo "unset done\n";
    PHP, ['ephpm.server_timeout' => '0.5']), "\n";
?>
--EXPECTF--
== fatal
Fatal error: giving up in %s

Warning: PHP Request Shutdown: Could not release lock "fatal %d" at the end of the request: %sin time%s

Warning: PHP Request Shutdown: 7 more locks or leases were not released at the end of the request: the store did not answer; they are freed when their TTL runs out in Unknown on line 0
== normal end
Warning: PHP Request Shutdown: Could not release lock "normal end %d" on destruction: %sin time%s

Warning: PHP Request Shutdown: 7 more locks or leases were not released at the end of the request: the store did not answer; they are freed when their TTL runs out in Unknown on line 0
== unset
Warning: Unknown: Could not release lock "dropped" on destruction: %sin time%s
unset done
