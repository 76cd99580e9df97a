<?php
// A CLI process (a cron job, a queue worker) doing what app/lock_counter.php
// does in the workers, $argv[1] times, on the same named segment.
for ($i = 0; $i < (int)$argv[1]; $i++) {
    $lock = Ephpm\Lock::acquire('lock:counter', 10, 30) ?? throw new RuntimeException('lock wait ran out');
    $n = (int)ephpm_kv_get('counter');
    usleep(20000);
    ephpm_kv_set('counter', (string)($n + 1));
    $lock->release();
}
echo ephpm_kv_stats()['engine'], ' ', getmypid(), "\n";
