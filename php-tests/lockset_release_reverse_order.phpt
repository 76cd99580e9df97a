--TEST--
Ephpm\LockSet::release() frees the members in reverse acquisition order: a process waiting for the first member finds the last one already free
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['map'], 'the in-process map is not shared between processes');
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
// The set is R:a, R:b0000 ... R:b4999 (taken in that order). A child waits
// for R:a, the first taken; the moment it gets it, it looks at R:b4999, the
// last taken. Released newest first, R:b4999 went long before R:a did.
// Released oldest first, R:a would go free while R:b4999 and 4998 others are
// still to be deleted, and the child, woken at once, would find it still held.
// On etcd each acquire and delete is a raft commit (3-5 ms): 500 members
// still leave a window of over a second, where 5000 would outlast the test.
define('MEMBERS', ephpm_test_on_etcd() ? 500 : 5000);
// R is this run's own (chosen before the fork): a lock another test's killed
// process left behind, or the flags of run-tests.php's first attempt before
// a retry, would otherwise make the set null or wake the child too soon.
$run = 'lsr' . getmypid();
$last = sprintf('%s:b%04d', $run, MEMBERS - 1);
if (($pid = pcntl_fork()) === 0) {                // forked before first use
    pcntl_alarm(90);
    for ($t = 0; $t < 30000 && !ephpm_kv_exists("$run:held"); $t++) {
        usleep(1000);
    }
    ephpm_kv_set("$run:waiting", '1');
    $lock = Ephpm\Lock::acquire("$run:a", 30, 60);
    $lastHeld = ephpm_kv_exists($last);
    ephpm_kv_set("$run:seen", $lock === null ? 'timeout' : ($lastHeld ? 'last member still held' : 'last member free'));
    $lock?->release();
    exit(0);
}
$names = ["$run:a"];
for ($i = MEMBERS - 1; $i >= 0; $i--) {
    $names[] = sprintf('%s:b%04d', $run, $i);
}
$set = Ephpm\Lock::acquireAll($names, 300);
var_dump(array_key_first($set->locks) === "$run:a", array_key_last($set->locks) === $last);
ephpm_kv_set("$run:held", '1');
for ($t = 0; $t < 30000 && !ephpm_kv_exists("$run:waiting"); $t++) {
    usleep(1000);
}
usleep(100000);                                   // the child is waiting on R:a
var_dump($set->release());
pcntl_waitpid($pid, $status);
var_dump(ephpm_kv_get("$run:seen"));
foreach (['held', 'waiting', 'seen'] as $flag) {
    ephpm_kv_del("$run:$flag");
}
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
string(16) "last member free"
