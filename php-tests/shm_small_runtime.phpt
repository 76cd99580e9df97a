--TEST--
Small in every worker: after use the process has few threads (GOMAXPROCS capped at 2 when the environment does not set it), and the environment is left as it was
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!is_dir('/proc/self/task')) die('skip no /proc/self/task'); ?>
--INI--
ephpm.server=
ephpm.shm_size=16M
--ENV--
GOMAXPROCS=
--FILE--
<?php
for ($i = 0; $i < 20000; $i++) {
    ephpm_kv_set("k$i", str_repeat('x', 200), 60);
    $lock = Ephpm\Lock::acquire("lock$i", 10);
    $lock->release();
}
ephpm_kv_set('held', 'someone', 0.2);
Ephpm\Lock::acquire('held', 10, 1)?->release(); // a wait in the engine
$threads = count(scandir('/proc/self/task')) - 2;
// PHP's thread plus the Go runtime's: about 7 at GOMAXPROCS=2, 11 at 8.
echo $threads <= 8 ? "few threads\n" : "$threads threads\n";
var_dump(getenv('GOMAXPROCS'));
?>
--EXPECT--
few threads
bool(false)
