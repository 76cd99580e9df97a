--TEST--
Ephpm\Semaphore of 3 permits, 6 processes taking and giving back permits in a loop: never more than 3 inside at once, and all 3 were used
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is across processes; each process makes the calls single-process tests run under valgrind');
ephpm_skip_in_modes(['map'], 'the in-process map is not shared between processes');
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
declare(strict_types=1);
// Each child is forked before this process first uses the store (a Go
// runtime does not survive fork()): each starts Go itself.
// Each child goes on for SECONDS, then until the controls below are met (a
// loaded machine or etcd does fewer rounds a second), at most UNTIL seconds.
const CHILDREN = 6, PERMITS = 3, SECONDS = 1.5, UNTIL = 15, WAIT = 10, ALARM = 30;
$p = 'sem' . getmypid() . ':';

$pids = [];
for ($c = 0; $c < CHILDREN; $c++) {
    if (($pid = pcntl_fork()) === 0) {
        pcntl_alarm(ALARM);
        ephpm_kv_incr("{$p}ready");
        while ((int) ephpm_kv_get("{$p}ready") < CHILDREN) {
            usleep(200);
        }
        $start = hrtime(true);
        $end = $start + (int) (SECONDS * 1e9);
        $until = $start + (int) (UNTIL * 1e9);
        while (($now = hrtime(true)) < $end || ($now < $until
            && ((int) ephpm_kv_get("{$p}seen3") <= 10 || (int) ephpm_kv_get("{$p}rounds") <= 100))) {
            $permit = Ephpm\Semaphore::acquire("{$p}pool", PERMITS, 30, WAIT);
            if ($permit === null) {
                ephpm_kv_incr("{$p}timeouts");
                continue;
            }
            // Inside: a shared count of the holders, and the most seen.
            $inside = ephpm_kv_incr("{$p}inside");
            if ($inside > PERMITS) {
                ephpm_kv_incr("{$p}over");
            }
            ephpm_kv_incr("{$p}seen$inside");
            usleep(random_int(1000, 3000));
            ephpm_kv_incr("{$p}inside", -1);
            if (!$permit->release()) {
                ephpm_kv_incr("{$p}lost");
            }
            ephpm_kv_incr("{$p}rounds");
        }
        exit(0);
    }
    $pids[] = $pid;
}
$failed = 0;
foreach ($pids as $pid) {
    pcntl_waitpid($pid, $status);
    $failed += (int) (!pcntl_wifexited($status) || pcntl_wexitstatus($status) !== 0);
}
$count = fn(string $k) => (int) ephpm_kv_get($p . $k);
printf("children failed %d, over the bound %d, timeouts %d, lost %d, left inside %d, holders %d\n", $failed,
    $count('over'), $count('timeouts'), $count('lost'), $count('inside'), Ephpm\Semaphore::holders("{$p}pool"));
// The control: all 3 permits were in use at once, many times over.
var_dump($count('seen3') > 10 ?: $count('seen3'), $count('rounds') > 100 ?: $count('rounds'));
?>
--EXPECT--
children failed 0, over the bound 0, timeouts 0, lost 0, left inside 0, holders 0
bool(true)
bool(true)
