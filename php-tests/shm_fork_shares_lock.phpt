--TEST--
Shared segment: processes forked after startup (the php-fpm model) share one store: a lock-protected counter ends exact, and a waiter wakes when the holder releases
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--INI--
ephpm.server=
ephpm.shm_size=16M
--FILE--
<?php
// Nothing touches the store before the forks: each child starts Go itself.
const CHILDREN = 4, ROUNDS = 150;
$pids = [];
for ($c = 0; $c < CHILDREN; $c++) {
    if (($pid = pcntl_fork()) === 0) {
        for ($i = 0; $i < ROUNDS; $i++) {
            $lock = Ephpm\Lock::acquire('counter-lock', 10, 30);
            $n = (int) ephpm_kv_get('counter'); // read-modify-write: exact only under the lock
            ephpm_kv_set('counter', (string) ($n + 1));
            $lock->release();
        }
        exit(0);
    }
    $pids[] = $pid;
}
foreach ($pids as $pid) {
    pcntl_waitpid($pid, $status);
}
var_dump(ephpm_kv_get('counter') === (string) (CHILDREN * ROUNDS), ephpm_kv_stats()['engine']);

// Wake on release: the parent waits for a lock a child holds for 0.3 s.
// Polling with backoff (10 ms doubling to 100 ms) would try again about
// 50 ms after the release; a waiter woken by the release is there at once.
for ($round = 0; $round < 3; $round++) {
    if (($pid = pcntl_fork()) === 0) {
        $lock = Ephpm\Lock::acquire('held', 10, 5);
        ephpm_kv_set('holding', '1');
        usleep(300000);
        ephpm_kv_set('released_at', (string) hrtime(true));
        $lock->release();
        exit(0);
    }
    while (!ephpm_kv_exists('holding')) {
        usleep(1000);
    }
    $lock = Ephpm\Lock::acquire('held', 10, 5);
    $late[] = (hrtime(true) - (int) ephpm_kv_get('released_at')) / 1e6;
    $lock->release();
    ephpm_kv_del('holding');
    pcntl_waitpid($pid, $status);
}
sort($late);
echo $late[1] < 20 ? "woken at the release\n" : sprintf("acquired %.1f ms after the release (median of 3)\n", $late[1]);
?>
--EXPECT--
bool(true)
string(3) "shm"
woken at the release
