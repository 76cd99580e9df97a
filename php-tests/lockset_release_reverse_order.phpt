--TEST--
Ephpm\LockSet::release() frees the members in reverse acquisition order: a process waiting for the first member finds the last one already free
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['map'], 'the in-process map is not shared between processes');
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
// The set is ls:a, ls:b0000 ... ls:b4999 (taken in that order). A child
// waits for ls:a, the first taken; the moment it gets it, it looks at
// ls:b4999, the last taken. Released newest first, ls:b4999 went long before
// ls:a did. Released oldest first, ls:a would go free while ls:b4999 and
// 4998 others are still to be deleted, and the child, woken at once, would
// find it still held.
const MEMBERS = 5000;
$last = sprintf('ls:b%04d', MEMBERS - 1);
if (($pid = pcntl_fork()) === 0) {                // forked before first use
    pcntl_alarm(90);
    for ($t = 0; $t < 30000 && !ephpm_kv_exists('ls:held'); $t++) {
        usleep(1000);
    }
    ephpm_kv_set('ls:waiting', '1');
    $lock = Ephpm\Lock::acquire('ls:a', 30, 60);
    $lastHeld = ephpm_kv_exists($last);
    ephpm_kv_set('ls:seen', $lock === null ? 'timeout' : ($lastHeld ? 'last member still held' : 'last member free'));
    $lock?->release();
    exit(0);
}
$names = ['ls:a'];
for ($i = MEMBERS - 1; $i >= 0; $i--) {
    $names[] = sprintf('ls:b%04d', $i);
}
$set = Ephpm\Lock::acquireAll($names, 30);
var_dump(array_key_first($set->locks), array_key_last($set->locks));
ephpm_kv_set('ls:held', '1');
for ($t = 0; $t < 30000 && !ephpm_kv_exists('ls:waiting'); $t++) {
    usleep(1000);
}
usleep(100000);                                   // the child is waiting on ls:a
var_dump($set->release());
pcntl_waitpid($pid, $status);
var_dump(ephpm_kv_get('ls:seen'));
?>
--EXPECT--
string(4) "ls:a"
string(8) "ls:b4999"
bool(true)
string(16) "last member free"
