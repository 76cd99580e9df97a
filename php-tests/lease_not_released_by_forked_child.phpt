--TEST--
A process forked while holding a ReadWriteLock or a Semaphore permit does not release them when it ends, normally or by a fatal error, and cannot use them (no call into Go there): they are the parent's
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built');
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$server = 'unix://' . ephpm_test_server();
echo ephpm_child($server, <<<'PHP'
    $w = Ephpm\ReadWriteLock::write('doc', 30);
    $s = Ephpm\Semaphore::acquire('pool', 2, 30);
    foreach (['exit', 'fatal', 'use'] as $how) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            if ($how === 'fatal') {
                error_reporting(E_ALL & ~E_DEPRECATED); trigger_error('child dies', E_USER_ERROR); // deprecated in 8.4, still fatal
            }
            if ($how === 'use') {
                foreach ([fn() => $w->isAcquired(), fn() => $s->refresh(), fn() => $s->release()] as $call) {
                    try {
                        $call();
                    } catch (Ephpm\KvException $e) {
                        echo "child: ", str_contains($e->getMessage(), 'forked') ? 'refused' : $e->getMessage(), "\n";
                    }
                }
            }
            unset($w, $s);
            exit(0);
        }
        pcntl_waitpid($pid, $status);
        echo "after a child's $how: ", $w->isAcquired() && $s->isAcquired() ? 'still ours' : 'lost',
            ', holders ', Ephpm\Semaphore::holders('pool'), "\n";
    }
    var_dump($w->release(), $s->release(), Ephpm\Semaphore::holders('pool'));
    PHP), "\n";
?>
--EXPECTF--
%Aafter a child's exit: still ours, holders 1
%Aafter a child's fatal: still ours, holders 1
child: refused
child: refused
child: refused
after a child's use: still ours, holders 1
bool(true)
bool(true)
int(0)
