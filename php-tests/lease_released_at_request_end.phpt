--TEST--
ReadWriteLock and Semaphore holders still held when a fatal error ends the request (destructors skipped) are released at its end, not after their TTL; a process forked while holding them leaves them to the parent
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['map'], 'the in-process map is not shared between processes');
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
declare(strict_types=1);
// Forked before this process first uses the store (a Go runtime does not
// survive fork()): the child starts Go itself, on the same segment or server.
$names = ['end:doc:' . getmypid(), 'end:pool:' . getmypid()];
$pid = pcntl_fork();
if ($pid === 0) {
    $global = Ephpm\ReadWriteLock::write($names[0], 30);
    function work(string $name): void
    {
        $local = Ephpm\Semaphore::acquire($name, 3, 30);
        echo "child holds both\n";
        error_reporting(E_ALL & ~E_DEPRECATED); trigger_error('giving up', E_USER_ERROR); // deprecated in 8.4, still fatal
    }
    work($names[1]);
}
pcntl_waitpid($pid, $status);
foreach ($names as $name) {
    echo "$name: ", Ephpm\Semaphore::holders($name), " holders\n";
}

// Forked after first use: the child cannot call the store, so neither its
// exit nor its fatal error releases what the parent holds.
$w = Ephpm\ReadWriteLock::write($names[0], 30);
$s = Ephpm\Semaphore::acquire($names[1], 3, 30);
foreach (['exit', 'fatal'] as $how) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        if ($how === 'fatal') {
            error_reporting(E_ALL & ~E_DEPRECATED); trigger_error('child dies', E_USER_ERROR); // deprecated in 8.4, still fatal
        }
        exit(0);
    }
    pcntl_waitpid($pid, $status);
    echo "after a child's $how: ", $w->isAcquired() && $s->isAcquired() ? 'still ours' : 'lost', "\n";
}
var_dump($w->release(), $s->release());
?>
--EXPECTF--
child holds both

Fatal error: giving up in %s on line %d
end:doc:%d: 0 holders
end:pool:%d: 0 holders
%Aafter a child's exit: still ours
%Aafter a child's fatal: still ours
bool(true)
bool(true)
