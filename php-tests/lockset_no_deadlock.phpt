--TEST--
Ephpm\Lock::acquireAll: 4 processes taking overlapping sets in opposite orders ([a, b], [b, a], [c, a]...) under contention all finish without a timeout (no deadlock) and never hold one name twice at once
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is across processes; each process makes the calls single-process tests run under valgrind');
ephpm_skip_in_modes(['map'], 'the in-process map is not shared between processes');
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
// Each child is forked before this process first uses the store (a Go
// runtime does not survive fork()): each starts Go itself.
// Each child goes on for SECONDS, then until the controls below are met (a
// loaded machine or etcd does fewer rounds a second), at most UNTIL seconds.
const CHILDREN = 4, SECONDS = 2.0, UNTIL = 15, WAIT = 5, ALARM = 30;
const SETS = [
    ['ls:a', 'ls:b'], ['ls:b', 'ls:a'], ['ls:b', 'ls:c'], ['ls:c', 'ls:a'],
    ['ls:c', 'ls:d'], ['ls:d', 'ls:b'], ['ls:a', 'ls:d'], ['ls:d', 'ls:c', 'ls:b'],
];

function all_ready(): void
{
    ephpm_kv_incr('ls:ready');
    for ($t = 0; $t < 100000 && (int) ephpm_kv_get('ls:ready') < CHILDREN; $t++) {
        usleep(100);
    }
}

$pids = [];
for ($c = 0; $c < CHILDREN; $c++) {
    if (($pid = pcntl_fork()) === 0) {
        // A deadlock that waits forever (a $wait without end) must end the
        // test, not hang it: SIGALRM kills this child, and the parent says so.
        pcntl_alarm(ALARM);
        all_ready();
        $start = hrtime(true);
        $end = $start + (int) (SECONDS * 1e9);
        $until = $start + (int) (UNTIL * 1e9);
        for ($i = $c; ($now = hrtime(true)) < $end || ($now < $until
            && ((int) ephpm_kv_get('ls:contended') <= 10 || (int) ephpm_kv_get('ls:rounds') <= 100)); $i++) {
            $names = SETS[$i % count(SETS)];
            $set = Ephpm\Lock::acquireAll($names, 30, 0);
            if ($set === null) {
                ephpm_kv_incr('ls:contended');    // someone held one: now wait for it
                $set = Ephpm\Lock::acquireAll($names, 30, WAIT);
            }
            if ($set === null) {
                ephpm_kv_incr('ls:timeouts');
                continue;
            }
            // Inside: each name's in-use count must be exactly 1.
            foreach ($names as $n) {
                if (ephpm_kv_incr("in-use:$n") !== 1) {
                    ephpm_kv_incr('ls:overlaps');
                }
            }
            usleep(300);
            foreach ($names as $n) {
                ephpm_kv_incr("in-use:$n", -1);
            }
            if (!$set->release()) {
                ephpm_kv_incr('ls:lost');
            }
            ephpm_kv_incr('ls:rounds');
            usleep(random_int(500, 2000));       // others get their turn
        }
        exit(0);
    }
    $pids[] = $pid;
}
$unfinished = 0;
foreach ($pids as $pid) {
    pcntl_waitpid($pid, $status);
    if (!pcntl_wifexited($status) || pcntl_wexitstatus($status) !== 0) {
        $unfinished++;
    }
}
echo $unfinished === 0 ? "all finished\n" : "$unfinished children did not finish within " . ALARM . " s: deadlock\n";
$count = fn(string $k) => (int) ephpm_kv_get($k);
printf("timeouts %d, overlaps %d, lost %d\n", $count('ls:timeouts'), $count('ls:overlaps'), $count('ls:lost'));
// The control: they really contended (sets were held when others asked),
// and did enough rounds for opposite orders to meet.
var_dump($count('ls:contended') > 10 ?: $count('ls:contended'), $count('ls:rounds') > 100 ?: $count('ls:rounds'));
?>
--EXPECT--
all finished
timeouts 0, overlaps 0, lost 0
bool(true)
bool(true)
