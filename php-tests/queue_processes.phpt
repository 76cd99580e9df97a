--TEST--
Ephpm\Queue with 1,000 jobs and 4 worker processes, one SIGKILLed holding jobs: every job acknowledged, the killed worker's jobs redelivered with attempts >= 2, no job delivered twice inside one visibility window
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
ephpm_skip_in_modes(['map'], 'the map is one process\'s');
ephpm_skip_under_valgrind('timing across processes; the queue, leader and barrier code is Go, checked by -race'); ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
const JOBS = 1000, WORKERS = 4, VISIBILITY = 1.5, KILLED_HOLDS = 5;
$name = 'queue-procs:' . getmypid();
$dir = sys_get_temp_dir() . '/ephpm-queue-' . getmypid();
@mkdir($dir);
// Workers fork before this process uses the store (a Go runtime does not
// survive fork()). Each logs "id attempts before after payload" per
// delivery (the monotonic clock around pop()) and "ack id" per ack that
// returned true. Worker 0 takes KILLED_HOLDS jobs and is SIGKILLed
// holding them.
$pids = [];
for ($w = 0; $w < WORKERS; $w++) {
    if (($pid = pcntl_fork()) === 0) {
        $log = fopen("$dir/$w", 'w');
        $q = new Ephpm\Queue($name, VISIBILITY, 5);
        $held = 0;
        for (;;) {
            $before = hrtime(true);
            $job = $q->pop(VISIBILITY + 2); // long enough to see the killed worker's jobs come back
            if ($job === null) {
                break;
            }
            fwrite($log, "{$job->id} {$job->attempts} $before " . hrtime(true) . " {$job->payload}\n");
            if ($w === 0 && ++$held === KILLED_HOLDS) {
                fflush($log);
                exec('kill -KILL ' . getmypid()); // posix may not be loaded
            }
            if ($w === 0) {
                continue; // holds it, unacknowledged
            }
            if ($job->ack()) {
                fwrite($log, "ack {$job->id}\n");
            }
        }
        exit(0);
    }
    $pids[] = $pid;
}
$q = new Ephpm\Queue($name, VISIBILITY, 5);
$ids = [];
for ($i = 1; $i <= JOBS; $i++) {
    $ids[$q->push("job $i")] = "job $i";
}
foreach ($pids as $pid) {
    pcntl_waitpid($pid, $status);
}
$deliveries = $acked = [];
$killed = [];
foreach (glob("$dir/*") as $f) {
    foreach (file($f, FILE_IGNORE_NEW_LINES) as $line) {
        if (str_starts_with($line, 'ack ')) {
            $acked[substr($line, 4)] = true;
            continue;
        }
        [$id, $attempts, $before, $after, $payload] = explode(' ', $line, 5);
        $deliveries[$id][] = [(int) $attempts, (int) $before, (int) $after, $payload];
        if (basename($f) === '0') {
            $killed[] = $id;
        }
    }
    unlink($f);
}
rmdir($dir);
$wrongPayload = $early = 0;
foreach ($deliveries as $id => $ds) {
    usort($ds, fn($a, $b) => $a[1] <=> $b[1]);
    foreach ($ds as $i => [$attempts, $before, $after, $payload]) {
        $wrongPayload += $payload !== $ids[$id] ? 1 : 0;
        // A redelivery comes no sooner than a visibility after the pop
        // that delivered it before began.
        $early += $i > 0 && $after < $ds[$i - 1][1] + VISIBILITY * 1e9 ? 1 : 0;
    }
}
$redelivered = array_filter($killed, fn($id) => count($deliveries[$id]) >= 2 && max(array_column($deliveries[$id], 0)) >= 2);
echo count($ids), " pushed, ", count(array_intersect_key($ids, $acked)), " acknowledged, ", count($deliveries), " delivered\n";
echo count($killed), " held by the killed worker, ", count($redelivered), " of them redelivered with attempts >= 2\n";
echo "$early delivered twice inside one visibility window, $wrongPayload with another payload\n";
echo "size ", $q->size(), ", dead ", count($q->dead()), "\n";
?>
--EXPECT--
1000 pushed, 1000 acknowledged, 1000 delivered
5 held by the killed worker, 5 of them redelivered with attempts >= 2
0 delivered twice inside one visibility window, 0 with another payload
size 0, dead 0
