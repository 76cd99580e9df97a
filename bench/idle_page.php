<?php
// The page bench/idle_workers.sh asks each php-fpm worker for once:
//   ?use=1  stores one key (this worker's pid), so the worker's Go runtime
//           starts, then stays busy a moment so that concurrent requests
//           land on distinct workers
//   ?use=0  the same wait without touching the store
//   ?use=count  the store's key count and engine (checks the pool shares
//           one store, or does not, as its label says)
// Prints "pid" (or "keys engine").
$use = $_GET['use'] ?? '0';
if ($use === 'count') {
    $st = ephpm_kv_stats();
    echo $st['keys'], ' ', $st['engine'] ?? '?';
    return;
}
if ($use === '1') {
    ephpm_kv_set('idle:' . getmypid(), 'x');
}
usleep(300_000);
echo getmypid();
