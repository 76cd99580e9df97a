--TEST--
Ephpm\ReadWriteLock::write with $wait: gets in when the readers leave; meanwhile its intent refuses new readers; on timeout it drops the intent, so readers get in at once again
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['map'], 'the reader that leaves is another process: the in-process map is not shared'); 
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
declare(strict_types=1);
require_once __DIR__ . '/lease.inc';
$name = 'ww:' . getmypid();
$hold = ephpm_test_on_etcd() ? 1.5 : 0.3;
// Both children are forked before this process first uses the store (a Go
// runtime does not survive fork()). One reader holds for $hold s.
$reader = pcntl_fork();
if ($reader === 0) {
    pcntl_alarm(30); // a failing parent must not leave it behind
    $r = Ephpm\ReadWriteLock::read($name, 30);
    ephpm_kv_set("$name:ready", '1');
    usleep((int) ($hold * 1e6));
    $r->release();
    exit(0);
}
// The other comes as a new reader 0.1 s after the writer started waiting.
// Exit code 1: refused; 2: let in ahead of the writer.
$probe = pcntl_fork();
if ($probe === 0) {
    pcntl_alarm(30);
    while (!ephpm_kv_exists("$name:writing")) {
        usleep(1000);
    }
    usleep(100000);
    exit(Ephpm\ReadWriteLock::read($name, 30) === null ? 1 : 2);
}
while (!ephpm_kv_exists("$name:ready")) {
    usleep(1000);
}
// Too short a wait: null, and readers are not kept out afterwards.
$start = microtime(true);
var_dump(Ephpm\ReadWriteLock::write($name, 30, 0.05));
$late = Ephpm\ReadWriteLock::read($name, 30);
var_dump($late !== null);
$late?->release();

// Long enough: it waits out the reader; a reader arriving meanwhile is refused.
ephpm_kv_set("$name:writing", '1');
$w = Ephpm\ReadWriteLock::write($name, 30, 10);
$took = microtime(true) - $start;
var_dump($w !== null, $took >= $hold * 0.8 && $took < $hold + 2);
pcntl_waitpid($probe, $status);
echo 'a reader arriving while the writer waited: ', pcntl_wexitstatus($status) === 1 ? 'refused' : 'let in', "\n";
pcntl_waitpid($reader, $status);
?>
--EXPECT--
NULL
bool(true)
bool(true)
bool(true)
a reader arriving while the writer waited: refused
