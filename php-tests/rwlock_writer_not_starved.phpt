--TEST--
Ephpm\ReadWriteLock: readers in 4 processes overlap without a gap, yet a writer waiting with $wait gets in within it (its intent holds new readers back), excludes every reader while inside, and the readers go on after it
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is across processes; each process makes the calls single-process tests run under valgrind');
ephpm_skip_in_modes(['map'], 'the in-process map is not shared between processes');
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
declare(strict_types=1);
require_once __DIR__ . '/lease.inc';
// Children forked before this process first uses the store (a Go runtime
// does not survive fork()). Each reader holds 80 ms and asks again at once,
// starting 20 ms after the previous one: at any moment some reader holds,
// so without writer preference the writer would never find the name free.
const READERS = 4, HOLD_US = 80000, ALARM = 30;
$wait = ephpm_test_on_etcd() ? 6.0 : 3.0;
$p = 'starve' . getmypid() . ':';

$pids = [];
for ($c = 0; $c < READERS; $c++) {
    if (($pid = pcntl_fork()) === 0) {
        pcntl_alarm(ALARM);
        usleep($c * 20000);
        ephpm_kv_incr("{$p}ready");
        while (!ephpm_kv_exists("{$p}stop")) {
            $r = Ephpm\ReadWriteLock::read("{$p}doc", 30, 10);
            if ($r === null) {
                ephpm_kv_incr("{$p}reader-timeouts");
                continue;
            }
            if (ephpm_kv_get("{$p}writer-inside") === '1') {
                ephpm_kv_incr("{$p}overlaps");
            }
            ephpm_kv_incr("{$p}reads");
            if ((int) ephpm_kv_get("{$p}writer-done") > 0) {
                ephpm_kv_incr("{$p}reads-after");
            }
            usleep(HOLD_US);
            $r->release();
        }
        exit(0);
    }
    $pids[] = $pid;
}
while ((int) ephpm_kv_get("{$p}ready") < READERS) {
    usleep(1000);
}
usleep(300000); // readers overlapping for a while
$start = microtime(true);
$w = Ephpm\ReadWriteLock::write("{$p}doc", 30, $wait);
$took = microtime(true) - $start;
echo $w === null ? "writer starved: no lock within $wait s\n" : "writer got in within its wait\n";
if ($w !== null) {
    ephpm_kv_set("{$p}writer-inside", '1');
    $readsBefore = (int) ephpm_kv_get("{$p}reads");
    usleep(200000);
    $readsDuring = (int) ephpm_kv_get("{$p}reads") - $readsBefore;
    ephpm_kv_set("{$p}writer-inside", '0');
    $w->release();
    ephpm_kv_incr("{$p}writer-done");
    echo "reads that began while the writer was inside: $readsDuring\n";
}
usleep(300000); // the readers go on
ephpm_kv_set("{$p}stop", '1');
$failed = 0;
foreach ($pids as $pid) {
    pcntl_waitpid($pid, $status);
    $failed += (int) (!pcntl_wifexited($status) || pcntl_wexitstatus($status) !== 0);
}
$count = fn(string $k) => (int) ephpm_kv_get($p . $k);
printf("children failed %d, reader overlaps with the writer %d, reader timeouts %d\n", $failed, $count('overlaps'),
    $count('reader-timeouts'));
var_dump($count('reads') > 10 ?: $count('reads'), $count('reads-after') > 0);
?>
--EXPECT--
writer got in within its wait
reads that began while the writer was inside: 0
children failed 0, reader overlaps with the writer 0, reader timeouts 0
bool(true)
bool(true)
