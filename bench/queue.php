<?php
// make bench's queue figures: jobs per second for push + pop + ack (delete)
// from one PHP process, N jobs queued then drained: Ephpm\Queue on the
// shared segment and on an ephpm-kv server (unix socket), next to Laravel
// 8's DatabaseQueue on SQLite (a file under TMPDIR) and RedisQueue through
// phpredis on Debian's redis-server (unix socket). Each sample is a fresh
// php -n with only the extensions its contender needs; contenders take
// turns each round. Medians and ranges over the rounds.
//
// Usage: php -n bench/queue.php   (after make all and build/deps.sh bench bridges)
// Knobs: ROUNDS (5) JOBS (1000)
require __DIR__ . '/sample.inc';

$root = dirname(__DIR__);
$rounds = (int) (getenv('ROUNDS') ?: 5);
$jobs = (int) (getenv('JOBS') ?: 1000);
$dir = sys_get_temp_dir() . '/ephpm-queue-bench-' . getmypid();
@mkdir($dir);
$servers = [
    proc_open([$root . '/build/ephpm-kv', '-unix', "$dir/kv.sock"], [2 => ['file', '/dev/null', 'w']], $p1),
    proc_open(['redis-server', '--port', '0', '--unixsocket', "$dir/redis.sock", '--save', '', '--appendonly', 'no'],
        [1 => ['file', '/dev/null', 'w']], $p2),
];
register_shutdown_function(function () use ($servers, $dir): void {
    foreach ($servers as $s) {
        proc_terminate($s);
        proc_close($s);
    }
    array_map('unlink', glob("$dir/*"));
    @rmdir($dir);
});
for ($t = 0; $t < 100 && !(file_exists("$dir/kv.sock") && file_exists("$dir/redis.sock")); $t++) {
    usleep(50_000);
}
$ext = ['-d', "extension=$root/build/ephpm.so"];
$contenders = [
    'Ephpm\Queue, shared segment' => ['ephpm', $ext, ''],
    'Ephpm\Queue, ephpm-kv server' => ['ephpm', [...$ext, '-d', "ephpm.server=unix://$dir/kv.sock"], ''],
    'Laravel DatabaseQueue, SQLite' => ['laravel-database-sqlite', ['-d', 'extension=mbstring', '-d', 'extension=pdo',
        '-d', 'extension=pdo_sqlite'], "$dir/q.sqlite"],
    'Laravel RedisQueue, phpredis' => ['laravel-redis', ['-d', 'extension=mbstring', '-d', 'extension=igbinary',
        '-d', 'extension=redis'], "$dir/redis.sock"],
];
touch("$dir/q.sqlite"); // Laravel opens an SQLite file, never creates it
$rates = [];
for ($r = 0; $r < $rounds; $r++) {
    foreach ($contenders as $label => [$kind, $ini, $arg]) {
        $got = run_sample([PHP_BINARY, '-n', ...$ini, __DIR__ . '/queue_loop.php', $kind, (string) $jobs, $arg], $label);
        $rates[$label][] = $got['jobs_per_s'];
    }
}
printf("Queue: jobs per second, push + pop + ack of %d jobs from one process (median (min-max) of %d rounds; load %s)\n",
    $jobs, $rounds, loadavg());
foreach ($rates as $label => $xs) {
    printf("  %-32s %s\n", $label, fmt($xs));
}
