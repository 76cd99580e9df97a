<?php
// A CLI process (a cron job, a queue worker) doing what app/lock_counter.php
// does in the workers, $argv[1] times, on the same named segment; with
// $argv[2] = 'unlocked', without the lock (app/lock_counter.php?lock=0).
$locked = ($argv[2] ?? '') !== 'unlocked';
$key = $locked ? 'counter' : 'counter:unlocked';
for ($i = 0; $i < (int)$argv[1]; $i++) {
    $lock = $locked ? Ephpm\Lock::acquire('lock:counter', 10, 30) ?? throw new RuntimeException('lock wait ran out') : null;
    $n = (int)ephpm_kv_get($key);
    usleep(20000);
    ephpm_kv_set($key, (string)($n + 1));
    $lock?->release();
}
echo ephpm_kv_stats()['engine'], ' ', getmypid(), "\n";
