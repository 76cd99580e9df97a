--TEST--
Lock::acquire(autoRenew: true): another process cannot take a renewed lock after 3 TTLs; once its holder is SIGKILLed it is free within one TTL
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own segment and ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built');
ephpm_skip_under_valgrind('its points are sub-second deadlines of child processes, which valgrind slows several-fold (lock_watchdog_renews and lock_watchdog_lost run the watchdog under valgrind)'); ?>
--FILE--
<?php
declare(strict_types=1);
require __DIR__ . '/watchdog.inc';
$ttl = 0.5;
foreach (ephpm_watchdog_engines() as $engine => $ini) {
    $holder = ephpm_watchdog_holder($ini, 'wd-killed', $ttl, 300);
    usleep((int)(3 * $ttl * 1e6));
    echo "$engine, after 3 TTLs: ", ephpm_watchdog_check($ini, 'var_dump(ephpm_kv_setnx("wd-killed", "x", 30));'), "\n";
    proc_terminate($holder, 9);
    proc_close($holder);
    $killed = microtime(true);
    // polls for the lock for up to 3 TTLs; free within one (plus 0.3 s for the checking process to start)
    $out = ephpm_watchdog_check($ini, sprintf('$t = microtime(true);
        while (!ephpm_kv_setnx("wd-killed", "x", 30) && microtime(true) - $t < %F) { usleep(20000); }
        echo ephpm_kv_get("wd-killed");', 3 * $ttl));
    $after = microtime(true) - $killed;
    echo "$engine, after the kill: $out ", $after < $ttl + 0.3 ? 'within one TTL' : "after $after s", "\n";
}
?>
--EXPECT--
shm, after 3 TTLs: bool(false)
shm, after the kill: x within one TTL
server, after 3 TTLs: bool(false)
server, after the kill: x within one TTL
