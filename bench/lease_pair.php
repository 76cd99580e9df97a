<?php
// What a Leader's term, a ReadWriteLock, a Semaphore permit and ephpm_kv_rate_limit() cost
// per call from one PHP process, next to Ephpm\Lock's pair and
// ephpm_kv_incr() (the fixed-window recipe) in the same run: ns per
// acquire + release pair (per call for the limiters), on the shared segment
// the in-process map and an ephpm-kv server on a unix socket (a tenth of the
// iterations: each call is a round trip). Each sample is a fresh PHP process; the cases take
// turns in every round. Medians and ranges over the rounds.
//
// Usage: php bench/lease_pair.php   (after make all)
// Knobs: ROUNDS (7) ITERATIONS (100000)
declare(strict_types=1);

$cases = [
    'Lock::acquire + release' => fn() => Ephpm\Lock::acquire('b')->release(),
    'Leader::campaign + resign' => fn() => Ephpm\Leader::campaign('b', 'host-1')->resign(),
    'ReadWriteLock::read + release' => fn() => Ephpm\ReadWriteLock::read('b')->release(),
    'ReadWriteLock::write + release' => fn() => Ephpm\ReadWriteLock::write('b')->release(),
    'Semaphore::acquire(3) + release' => fn() => Ephpm\Semaphore::acquire('b', 3)->release(),
    'ephpm_kv_incr (fixed window)' => fn() => ephpm_kv_incr('b', 1, 60),
    'ephpm_kv_rate_limit(100, 1 ms)' => fn() => ephpm_kv_rate_limit('b', 100, 0.001),
    // a full log of 10000 calls (after the warm-up fills it): every call refused
    'ephpm_kv_rate_limit(10000, 60 s)' => fn() => ephpm_kv_rate_limit('b', 10000, 60),
];

if (($argv[1] ?? '') === 'sample') {
    $fn = array_values($cases)[(int) $argv[2]];
    $n = (int) $argv[3];
    ephpm_kv_flush(); // the server outlives samples: start each case from an empty store
    for ($i = 0; $i < 10000; $i++) {
        $fn();
    }
    $start = hrtime(true);
    for ($i = 0; $i < $n; $i++) {
        $fn();
    }
    echo (hrtime(true) - $start) / $n, "\n";
    exit(0);
}

$root = dirname(__DIR__);
$rounds = (int) (getenv('ROUNDS') ?: 7);
$n = (int) (getenv('ITERATIONS') ?: 100_000);
$engines = ['shm' => [], 'map' => ['ephpm.shm_size' => '0']];
$dir = sys_get_temp_dir() . '/ephpm-lease-bench-' . getmypid();
@mkdir($dir);
$server = proc_open([$root . '/build/ephpm-kv', '-unix', "$dir/kv.sock"], [2 => ['file', '/dev/null', 'w']], $pipes);
for ($t = 0; $t < 100 && !file_exists("$dir/kv.sock"); $t++) {
    usleep(50_000);
}
if (file_exists("$dir/kv.sock")) {
    $engines['server'] = ['ephpm.server' => "unix://$dir/kv.sock"];
} else {
    fwrite(STDERR, "the ephpm-kv server did not start: server column left out\n");
}
register_shutdown_function(function () use ($server, $dir): void {
    proc_terminate($server);
    proc_close($server);
    @unlink("$dir/kv.sock");
    @rmdir($dir);
});
$ns = [];
for ($r = 0; $r < $rounds; $r++) {
    foreach ($engines as $engine => $ini) {
        foreach (array_keys($cases) as $i => $label) {
            $cmd = [PHP_BINARY, '-n', '-d', "extension=$root/build/ephpm.so"];
            foreach ($ini as $k => $v) {
                array_push($cmd, '-d', "$k=$v");
            }
            array_push($cmd, __FILE__, 'sample', (string) $i, (string) ($engine === 'server' ? intdiv($n, 10) : $n));
            $out = shell_exec(implode(' ', array_map('escapeshellarg', $cmd)));
            $ns[$engine][$label][] = (float) $out;
        }
    }
}
printf("%-34s %s\n", 'ns per call (median, range)', implode('  ', array_map(fn($e) => sprintf('%-20s', $e), array_keys($engines))));
foreach (array_keys($cases) as $label) {
    $row = [];
    foreach (array_keys($engines) as $engine) {
        $s = $ns[$engine][$label];
        sort($s);
        $row[] = sprintf('%-20s', sprintf('%.0f (%.0f-%.0f)', $s[intdiv(count($s), 2)], $s[0], end($s)));
    }
    printf("%-34s %s\n", $label, implode('  ', $row));
}
