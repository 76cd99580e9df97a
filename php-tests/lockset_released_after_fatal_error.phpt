--TEST--
A LockSet still held when a fatal error ends the request (destructors skipped) has every member released at request end, not after its TTL
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$server = 'unix://' . ephpm_test_server();
// A set in a global and one in the frame the fatal error interrupts.
echo ephpm_child($server, <<<'PHP'
    $global = Ephpm\Lock::acquireAll(['ls:g2', 'ls:g1'], 30);
    function work(): void
    {
        $local = Ephpm\Lock::acquireAll(['ls:l1', 'ls:l2', 'ls:l3'], 30);
        echo "holding ", count($GLOBALS['global']->locks) + count($local->locks), " locks\n";
        error_reporting(E_ALL & ~E_DEPRECATED); trigger_error('giving up', E_USER_ERROR); // deprecated in 8.4, still fatal
    }
    work();
    PHP), "\n";
echo ephpm_child($server, <<<'PHP'
    $names = ['ls:g1', 'ls:g2', 'ls:l1', 'ls:l2', 'ls:l3'];
    echo implode(' ', array_map(fn($n) => ephpm_kv_exists($n) ? 'held' : 'free', $names)), "\n";
    var_dump(Ephpm\Lock::acquireAll($names, 30)?->release());
    PHP), "\n";
?>
--EXPECTF--
holding 5 locks

Fatal error: giving up in %s
free free free free free
bool(true)
