--TEST--
Ephpm\Leader across 4 processes: leaderships never overlap in time and their terms rise in the order they began; a leader SIGKILLed while leading blocks the election until its lease runs out, never longer than the ttl past its campaign
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
ephpm_skip_in_modes(['map'], 'the map is one process\'s');
ephpm_skip_under_valgrind('timing across processes; the queue, leader and barrier code is Go, checked by -race'); ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
const CHILDREN = 4, ROUNDS = 5, KILLED_TTL = 1.0;
$election = 'leader-procs:' . getmypid();
$dir = sys_get_temp_dir() . '/ephpm-leader-' . getmypid();
@mkdir($dir);
// Children fork before this process uses the store (a Go runtime does not
// survive fork()). Each logs "before began ended term" per leadership: the
// monotonic clock before the winning attempt, after it returned, before
// resigning. The last child's last leadership ends by SIGKILL.
$pids = [];
for ($c = 0; $c < CHILDREN; $c++) {
    if (($pid = pcntl_fork()) === 0) {
        $log = fopen("$dir/$c", 'w');
        for ($won = 0; $won < ROUNDS;) {
            $before = hrtime(true);
            $last = $c === CHILDREN - 1 && $won === ROUNDS - 1;
            $l = Ephpm\Leader::campaign($election, "child $c", $last ? KILLED_TTL : 5.0);
            if ($l === null) {
                usleep(random_int(100, 2000));
                continue;
            }
            $began = hrtime(true);
            usleep(5000);
            if ($last) {
                fwrite($log, "$before $began kill {$l->term}\n");
                fflush($log);
                exec('kill -KILL ' . getmypid()); // posix may not be loaded
            }
            $stillLeader = $l->isLeader();
            fwrite($log, "$before $began " . hrtime(true) . " {$l->term}\n");
            if (!$stillLeader || !$l->resign()) {
                fwrite($log, "lost\n");
            }
            $won++;
        }
        exit(0);
    }
    $pids[] = $pid;
}
foreach ($pids as $pid) {
    pcntl_waitpid($pid, $status);
}
$terms = [];
$spans = [];
foreach (glob("$dir/*") as $f) {
    foreach (file($f, FILE_IGNORE_NEW_LINES) as $line) {
        if ($line === 'lost') {
            echo "a leader lost its leadership while holding it\n";
            continue;
        }
        [$before, $began, $ended, $term] = explode(' ', $line);
        // A killed leader leads until its lease runs out: at most the ttl
        // after its winning attempt began.
        $end = $ended === 'kill' ? (int) $before + (int) (KILLED_TTL * 1e9) : (int) $ended;
        $spans[] = [(int) $began, $end, (int) $term, $ended === 'kill'];
    }
    unlink($f);
}
rmdir($dir);
usort($spans, fn($a, $b) => $a[0] <=> $b[0]);
$overlaps = $backwards = 0;
for ($i = 1; $i < count($spans); $i++) {
    $overlaps += $spans[$i][0] < $spans[$i - 1][1] ? 1 : 0;
    $backwards += $spans[$i][2] <= $spans[$i - 1][2] ? 1 : 0;
}
echo count($spans), " leaderships, ", $overlaps, " overlaps, ", $backwards, " terms not above the one before\n";
echo count(array_filter($spans, fn($s) => $s[3])), " killed while leading\n";
// Nobody leads once the killed leader's lease ran out.
for ($t = microtime(true); Ephpm\Leader::current($election) !== null && microtime(true) - $t < 5;) {
    usleep(50000);
}
var_dump(Ephpm\Leader::current($election));
?>
--EXPECT--
20 leaderships, 0 overlaps, 0 terms not above the one before
1 killed while leading
NULL
