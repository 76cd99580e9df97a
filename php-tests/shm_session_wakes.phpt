--TEST--
Shared segment: a session waiting for another process's lock on it wakes when that request closes the session, and sees its write
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('its --INI-- sets the engine');
ephpm_skip_under_valgrind('it times the wake against polling');
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--INI--
ephpm.server=
ephpm.shm_size=16M
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
ephpm.session_lock_wait=5
--FILE--
<?php
const ROUNDS = 3;
$id = 'shared' . str_repeat('s', 26);
// Forked before this process first uses the store: each child is a request
// that holds the session 0.3 s, then writes and closes it.
for ($r = 0; $r < ROUNDS; $r++) {
    if (($pid = pcntl_fork()) === 0) {
        for ($t = 0; $t < 30000 && !ephpm_kv_exists("go:$r"); $t++) {
            usleep(1000);
        }
        session_id($id);
        session_start();
        ephpm_kv_set("holding:$r", '1');
        usleep(300000);
        $_SESSION['n'] = ($_SESSION['n'] ?? 0) + 1;
        ephpm_kv_set('closed_at', (string) hrtime(true));
        session_write_close();
        exit(0);
    }
    $pids[] = $pid;
}
$late = [];
for ($r = 0; $r < ROUNDS; $r++) {
    ephpm_kv_set("go:$r", '1');
    for ($t = 0; $t < 30000 && !ephpm_kv_exists("holding:$r"); $t++) {
        usleep(1000);
    }
    session_id($id);
    session_start();
    $late[] = (hrtime(true) - (int) ephpm_kv_get('closed_at')) / 1e6;
    $seen[] = $_SESSION['n'] ?? 0;
    session_write_close();
}
foreach ($pids as $pid) {
    pcntl_waitpid($pid, $status);
}
echo implode(' ', $seen), "\n";
sort($late);
// Polling with backoff would come about 50 ms after the close.
echo $late[1] < 20 ? "woken at the close\n" : sprintf("started %.1f ms after the close (median of 3)\n", $late[1]);
?>
--EXPECT--
1 2 3
woken at the close
