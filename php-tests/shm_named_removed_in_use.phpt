--TEST--
A named segment removed (rm /dev/shm/NAME) or replaced while a process holds locks on it: within a second that process's Lock, ReadWriteLock, Semaphore and LockSet report not acquired, every store call throws Ephpm\KvException CONFIG saying so, and the request ends without errors, while a new process takes the same locks on a fresh segment
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('its children choose their engines'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
// The holder takes its locks, says so, waits for a line on stdin, and looks
// again past the once-a-second check of the segment's name.
$holder = <<<'PHP'
$held = [
    'lock' => Ephpm\Lock::acquire('job'),
    'rw' => Ephpm\ReadWriteLock::write('doc'),
    'sem' => Ephpm\Semaphore::acquire('pool', 1),
    'set' => Ephpm\Lock::acquireAll(['a', 'b']),
];
echo "held\n";
fgets(STDIN);
usleep(1_100_000);
foreach ($held as $what => $l) {
    echo "$what: ", var_export($l->isAcquired(), true), "\n";
}
echo "remaining: ", $held['lock']->remaining(), "\n";
foreach (['get' => fn () => ephpm_kv_get('k'), 'acquire' => fn () => Ephpm\Lock::acquire('other'),
    'release' => fn () => $held['lock']->release()] as $what => $call) {
    try {
        $call();
        echo "$what: no error\n";
    } catch (Ephpm\KvException $e) {
        echo "$what: ", $e->getCode() === Ephpm\KvException::CONFIG ? 'CONFIG' : "code {$e->getCode()}",
            preg_match('/segment \/\S+ was (removed(, and another created in its place,)?) while this process used '
                . 'it: .*restart every process/', $e->getMessage(), $m) ? ", says $m[1]" : ": {$e->getMessage()}", "\n";
    }
}
PHP;
$taker = 'var_dump((bool) Ephpm\Lock::acquire("job"), (bool) Ephpm\ReadWriteLock::write("doc"),
    (bool) Ephpm\Semaphore::acquire("pool", 1), (bool) Ephpm\Lock::acquireAll(["a", "b"]));';
foreach (['replaced', 'removed'] as $case) {
    echo "-- $case\n";
    $name = ephpm_test_shm_name();
    $p = proc_open([PHP_BINARY, '-n', '-d', 'extension=' . realpath(__DIR__ . '/../build/ephpm.so'),
        '-d', 'ephpm.library=' . ini_get('ephpm.library'), '-d', 'ephpm.server=',
        '-d', "ephpm.shm_name=$name", '-d', 'ephpm.shm_size=1M', '-r', $holder],
        [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes, null,
        array_diff_key(getenv(), ['USE_ZEND_ALLOC' => 1]));
    echo fgets($pipes[1]);
    unlink("/dev/shm$name"); // a deploy script's rm
    if ($case === 'replaced') {
        // a process started after the rm creates a fresh segment, where the locks are free
        echo ephpm_shm_child($name, '1M', $taker), "\n";
    }
    fwrite($pipes[0], "go\n");
    echo stream_get_contents($pipes[1]);
    proc_close($p);
}
?>
--EXPECT--
-- replaced
held
bool(true)
bool(true)
bool(true)
bool(true)
lock: false
rw: false
sem: false
set: false
remaining: 0
get: CONFIG, says removed, and another created in its place,
acquire: CONFIG, says removed, and another created in its place,
release: CONFIG, says removed, and another created in its place,
-- removed
held
lock: false
rw: false
sem: false
set: false
remaining: 0
get: CONFIG, says removed
acquire: CONFIG, says removed
release: CONFIG, says removed
