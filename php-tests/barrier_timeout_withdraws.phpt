--TEST--
Ephpm\Barrier::wait() across processes: a caller alone times out (false, not before its timeout) and its arrival is withdrawn, so the next round of 2 waits for its two real parties and they pass together
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is across processes; each process makes the calls single-process tests run under valgrind');
ephpm_skip_in_modes(['map'], 'the in-process map is not shared between processes'); ?>
--FILE--
<?php
// Child PHP processes (proc_open) on this run's store: a process forked
// after the store started here could not use it (fork_after_use.phpt).
require __DIR__ . '/shared.inc';
$name = 'barrier-withdraw:' . getmypid();
$wait = fn (float $sleep) => "usleep(" . (int) ($sleep * 1e6) . "); \$arrived = microtime(true);
    \$ok = Ephpm\\Barrier::wait('$name', 2, 10); printf('%s %.6F %.6F', var_export(\$ok, true), \$arrived, microtime(true));";

echo ephpm_shared_run("\$t = microtime(true); var_dump(Ephpm\\Barrier::wait('$name', 2, 0.3));
    \$took = microtime(true) - \$t; var_dump(\$took >= 0.3 ?: \$took);"), "\n";
// The next round: the first party alone, the second 0.5 s later. Were the
// timed-out arrival still counted, the first would pass at once, alone.
$first = ephpm_shared_start($wait(0));
$second = ephpm_shared_start($wait(0.5));
[$ok1, $arrived1, $passed1] = explode(' ', ephpm_shared_finish($first)) + ['', 0, 0];
[$ok2, $arrived2, $passed2] = explode(' ', ephpm_shared_finish($second)) + ['', 0, 0];
echo "first: $ok1, second: $ok2\n";
var_dump($arrived2 > $arrived1 ?: [$arrived1, $arrived2]);
var_dump($passed1 >= $arrived2 ?: sprintf('first passed %.3F s before the second arrived', $arrived2 - $passed1));
var_dump(abs($passed1 - $passed2) < 1 ?: [$passed1, $passed2]);
?>
--EXPECT--
bool(false)
bool(true)
first: true, second: true
bool(true)
bool(true)
bool(true)
