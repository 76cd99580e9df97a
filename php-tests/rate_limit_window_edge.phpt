--TEST--
ephpm_kv_rate_limit is exact at a window's edge: 2 processes hammering across it never get more than $limit admitted within one window, where the README's fixed-window recipe (ephpm_kv_incr with the window as TTL) admits about twice as many
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['map'], 'the in-process map is not shared between processes');
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
ephpm_skip_under_valgrind('its point is a burst of calls within 80 ms of a window edge, which valgrind slows several-fold (rate_limit_basics runs the limiter under valgrind)'); ?>
--FILE--
<?php
declare(strict_types=1);
require_once __DIR__ . '/lease.inc';
// Children forked before this process first uses the store (a Go runtime
// does not survive fork()). The pattern that defeats a fixed window: one
// call opens the window, the rest come in a burst just before its end and
// go on just after it. Each admitted call is stamped with the monotonic
// clock (one clock for every process of the host) before and after it.
const LIMIT = 10, CHILDREN = 2, ALARM = 30;
$window = ephpm_test_on_etcd() ? 2.0 : 0.5;
$p = 'edge' . getmypid() . ':';
$dir = sys_get_temp_dir() . "/ephpm-edge-" . getmypid();
@mkdir($dir);

$pids = [];
for ($c = 0; $c < CHILDREN; $c++) {
    if (($pid = pcntl_fork()) === 0) {
        pcntl_alarm(ALARM);
        while (($t0 = ephpm_kv_get("{$p}t0")) === null) {
            usleep(200);
        }
        // Burst from 80 ms before the edge to well past it (on etcd, whose
        // keys expire up to a second late, longer: the fixed window's edge
        // is when its key goes).
        $from = (int) $t0 + (int) (($window - 0.08) * 1e9);
        $to = (int) $t0 + (int) (($window + (ephpm_test_on_etcd() ? 1.5 : 0.15)) * 1e9);
        while (hrtime(true) < $from) {
            usleep(500);
        }
        $stamps = ['exact' => [], 'fixed' => []];
        while (hrtime(true) < $to) {
            $before = hrtime(true);
            $ok = ephpm_kv_rate_limit("{$p}exact", LIMIT, $window)['allowed'];
            $after = hrtime(true);
            if ($ok) {
                $stamps['exact'][] = [$before, $after];
            }
            $before = hrtime(true);
            $ok = ephpm_kv_incr("{$p}fixed", 1, $window) <= LIMIT;
            $after = hrtime(true);
            if ($ok) {
                $stamps['fixed'][] = [$before, $after];
            }
            usleep(200);
        }
        file_put_contents("$dir/$c", json_encode($stamps));
        exit(0);
    }
    $pids[] = $pid;
}
// The first call of each opens its window.
$before = hrtime(true);
ephpm_kv_rate_limit("{$p}exact", LIMIT, $window);
ephpm_kv_incr("{$p}fixed", 1, $window);
$stamps = ['exact' => [[$before, hrtime(true)]], 'fixed' => [[$before, hrtime(true)]]];
ephpm_kv_set("{$p}t0", (string) $before);
foreach ($pids as $c => $pid) {
    pcntl_waitpid($pid, $status);
    foreach (json_decode((string) file_get_contents("$dir/$c"), true) as $kind => $s) {
        $stamps[$kind] = array_merge($stamps[$kind], $s);
    }
    unlink("$dir/$c");
}
rmdir($dir);

// The most admitted calls provably inside one window: calls i..j, sorted by
// when they started, all happened between i's start and j's end; if that
// span is under one window, all j-i+1 were admitted within one window.
function most_in_one_window(array $calls, float $window): int
{
    usort($calls, fn($a, $b) => $a[0] <=> $b[0]);
    $most = 0;
    for ($i = 0, $n = count($calls); $i < $n; $i++) {
        $end = 0;
        for ($j = $i; $j < $n; $j++) {
            $end = max($end, $calls[$j][1]);
            if ($end - $calls[$i][0] < $window * 1e9) {
                $most = max($most, $j - $i + 1);
            }
        }
    }
    return $most;
}
$exact = most_in_one_window($stamps['exact'], $window);
$fixed = most_in_one_window($stamps['fixed'], $window);
echo "ephpm_kv_rate_limit: ", $exact <= LIMIT ? "at most the limit" : "$exact", " in one window\n";
echo "fixed window: ", $fixed > LIMIT * 1.5 ? "over 1.5x the limit" : "$fixed", " in one window\n";
// The controls: the burst filled the exact window before the edge, and the
// slot the opening call freed at the edge was taken again.
var_dump(count($stamps['exact']) === LIMIT + 1 ?: count($stamps['exact']));
?>
--EXPECT--
ephpm_kv_rate_limit: at most the limit in one window
fixed window: over 1.5x the limit in one window
bool(true)
