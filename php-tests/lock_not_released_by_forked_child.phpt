--TEST--
A process forked while holding a lock does not release it when it ends, normally or by a fatal error: the lock is the parent's
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built');
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$server = 'unix://' . ephpm_test_server();
echo ephpm_child($server, <<<'PHP'
    $lock = Ephpm\Lock::acquire('job', 30);
    foreach (['exit', 'fatal'] as $how) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            if ($how === 'fatal') {
                error_reporting(E_ALL & ~E_DEPRECATED); trigger_error('child dies', E_USER_ERROR); // deprecated in 8.4, still fatal
            }
            exit(0);
        }
        pcntl_waitpid($pid, $status);
        echo "after a child's $how: ", $lock->isAcquired() ? 'still ours' : 'lost', "\n";
    }
    var_dump($lock->release());
    // Forked inside run(): the child's run() returns without releasing
    // (and without an exception); the parent's releases.
    $parent = getmypid();
    Ephpm\Lock::run('job', function () {
        $pid = pcntl_fork();
        if ($pid === 0) {
            return;
        }
        pcntl_waitpid($pid, $status);
        echo "after a child's run(): ", ephpm_kv_exists('job') ? 'still ours' : 'lost', "\n";
    });
    if (getmypid() !== $parent) {
        echo "child: run() returned\n";
        exit(0);
    }
    echo "parent's run() returned: ", ephpm_kv_exists('job') ? 'held' : 'free', "\n";
    PHP), "\n";
?>
--EXPECTF--
%Aafter a child's exit: still ours
%Aafter a child's fatal: still ours
bool(true)
child: run() returned
after a child's run(): still ours
parent's run() returned: free
