--TEST--
Ephpm\ReadWriteLock::write with $wait: gets in when the readers leave; meanwhile its intent refuses new readers; on timeout it drops the intent, so readers get in at once again
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['map'], 'the reader that leaves is another process: the in-process map is not shared'); 
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
declare(strict_types=1);
$name = 'ww:' . getmypid();
// Under valgrind on a loaded machine a child's Go start-up alone can take
// tens of seconds: the alarms that end a hung child (or this process) are
// generous, the bounds that matter below are timed from stamps.
const ALARM = 120;
// Both children are forked before this process first uses the store (a Go
// runtime does not survive fork()). No step is timed against another
// process's sleep (valgrind or a loaded machine stretches any of them): the
// reader holds until the probe has tried, and stamps (hrtime, one monotonic
// clock for every process of the host) when it lets go.
$reader = pcntl_fork();
if ($reader === 0) {
    pcntl_alarm(ALARM); // a failing parent must not leave it behind
    $r = Ephpm\ReadWriteLock::read($name, 30);
    ephpm_kv_set("$name:ready", '1');
    while (!ephpm_kv_exists("$name:probed")) {
        usleep(1000);
    }
    ephpm_kv_set("$name:leaving", (string) hrtime(true));
    $r->release();
    exit(0);
}
// The probe comes as a new reader once the writer is waiting, and tries
// again (releasing at once) until refused: a try can come before the writer
// has posted its intent; without an intent, every try for 5 s gets in.
// Exit code 1: refused; 2: let in ahead of the writer.
$probe = pcntl_fork();
if ($probe === 0) {
    pcntl_alarm(ALARM);
    ephpm_kv_set("$name:probe-up", '1');
    while (!ephpm_kv_exists("$name:writing")) {
        usleep(1000);
    }
    usleep(100000);
    $end = hrtime(true) + 5 * 1_000_000_000;
    while (($in = Ephpm\ReadWriteLock::read($name, 30)) !== null && hrtime(true) < $end) {
        $in->release();
        usleep(20000);
    }
    ephpm_kv_set("$name:probed", '1');
    exit($in === null ? 1 : 2);
}
pcntl_alarm(ALARM + 10);
while (!ephpm_kv_exists("$name:ready") || !ephpm_kv_exists("$name:probe-up")) {
    usleep(1000);
}
// Too short a wait: null, and readers are not kept out afterwards.
var_dump(Ephpm\ReadWriteLock::write($name, 30, 0.05));
$late = Ephpm\ReadWriteLock::read($name, 30);
var_dump($late !== null);
$late?->release();

// Long enough: it waits out the reader (gets in after the reader's stamp,
// and soon after it, not at the end of its 30 s wait); a reader arriving
// meanwhile is refused.
ephpm_kv_set("$name:writing", '1');
$w = Ephpm\ReadWriteLock::write($name, 30, 30);
$got = hrtime(true);
$leaving = (int) ephpm_kv_get("$name:leaving");
var_dump($w !== null, $leaving > 0 && $got >= $leaving && $got - $leaving < 3 * 1_000_000_000 ?: ($got - $leaving) / 1e9);
pcntl_waitpid($probe, $status);
echo 'a reader arriving while the writer waited: ', pcntl_wexitstatus($status) === 1 ? 'refused' : 'let in', "\n";
pcntl_waitpid($reader, $status);
?>
--EXPECT--
NULL
bool(true)
bool(true)
bool(true)
a reader arriving while the writer waited: refused
