--TEST--
Ephpm\Barrier across 5 processes arriving over 0.5 s: all pass together, none before the last arrives, round after round
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
ephpm_skip_in_modes(['map'], 'the map is one process\'s');
ephpm_skip_under_valgrind('timing across processes; the queue, leader and barrier code is Go, checked by -race'); ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
const PARTIES = 5, ROUNDS = 3;
$name = 'barrier-procs:' . getmypid();
$dir = sys_get_temp_dir() . '/ephpm-barrier-' . getmypid();
@mkdir($dir);
$pids = [];
for ($c = 0; $c < PARTIES; $c++) {
    if (($pid = pcntl_fork()) === 0) {
        $log = fopen("$dir/$c", 'w');
        for ($r = 0; $r < ROUNDS; $r++) {
            usleep(100000 * (($c + $r) % PARTIES)); // arrivals spread over 0.4 s
            $arrived = hrtime(true);
            $ok = Ephpm\Barrier::wait($name, PARTIES, 20);
            fwrite($log, "$r $arrived " . hrtime(true) . ' ' . ($ok ? 1 : 0) . "\n");
        }
        exit(0);
    }
    $pids[] = $pid;
}
foreach ($pids as $pid) {
    pcntl_waitpid($pid, $status);
}
$rounds = [];
foreach (glob("$dir/*") as $f) {
    foreach (file($f, FILE_IGNORE_NEW_LINES) as $line) {
        [$r, $arrived, $passed, $ok] = array_map('intval', explode(' ', $line));
        $rounds[$r][] = [$arrived, $passed, $ok];
    }
    unlink($f);
}
rmdir($dir);
ksort($rounds);
foreach ($rounds as $r => $parties) {
    $lastIn = max(array_column($parties, 0));
    $firstOut = min(array_column($parties, 1));
    $spread = (max(array_column($parties, 0)) - min(array_column($parties, 0))) / 1e9;
    printf("round %d: %d passed of %d, first out %s the last arrival, arrivals spread %s\n", $r,
        array_sum(array_column($parties, 2)), count($parties), $firstOut >= $lastIn ? 'after' : 'BEFORE',
        $spread >= 0.35 ? 'over 0.35 s' : "only $spread s");
}
?>
--EXPECT--
round 0: 5 passed of 5, first out after the last arrival, arrivals spread over 0.35 s
round 1: 5 passed of 5, first out after the last arrival, arrivals spread over 0.35 s
round 2: 5 passed of 5, first out after the last arrival, arrivals spread over 0.35 s
