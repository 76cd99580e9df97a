--TEST--
Lock::acquire(autoRenew: true, maxHold: 1): a hung holder keeps the lock past its TTL but loses it at maxHold + TTL
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own segment and ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built');
ephpm_skip_under_valgrind('its points are sub-second deadlines of child processes, which valgrind slows several-fold (lock_watchdog_renews and lock_watchdog_lost run the watchdog under valgrind)'); ?>
--FILE--
<?php
declare(strict_types=1);
require __DIR__ . '/watchdog.inc';
$ttl = 0.5;
$maxHold = 1.0;
foreach (ephpm_watchdog_engines() as $engine => $ini) {
    $holder = ephpm_watchdog_holder($ini, 'wd-hung', $ttl, $maxHold);
    $start = microtime(true);
    usleep((int)(($maxHold - 0.1) * 1e6)); // past the TTL: renewed
    echo "$engine, at 0.9 s: ", ephpm_watchdog_check($ini, 'var_dump(ephpm_kv_setnx("wd-hung", "x", 30));'), "\n";
    // the last renewal is before maxHold: free by maxHold + TTL (+ 0.3 s margin)
    usleep((int)(max(0, $start + $maxHold + $ttl + 0.3 - microtime(true)) * 1e6));
    echo "$engine, at maxHold + TTL: ", ephpm_watchdog_check($ini, 'var_dump(ephpm_kv_setnx("wd-hung", "x", 30));'), "\n";
    proc_terminate($holder, 9);
    proc_close($holder);
}
?>
--EXPECT--
shm, at 0.9 s: bool(false)
shm, at maxHold + TTL: bool(true)
server, at 0.9 s: bool(false)
server, at maxHold + TTL: bool(true)
