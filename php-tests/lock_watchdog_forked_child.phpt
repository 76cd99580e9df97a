--TEST--
Lock::acquire(autoRenew: true): a child forked while the lock is watched neither renews nor stops the parent's watchdog; the parent keeps the lock
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_skip_on_etcd('sub-second TTLs');
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
declare(strict_types=1);
$lock = Ephpm\Lock::acquire('wd-fork', 0.3, 0, true, 60);
$pid = pcntl_fork();
if ($pid === 0) {
    try {
        $lock->isAcquired();
    } catch (Ephpm\KvException $e) {
        echo "child: refused\n";
    }
    usleep(900000);  // 3 TTLs
    exit(0);         // ends without releasing or unwatching: the lock is the parent's
}
pcntl_waitpid($pid, $status);
usleep(300000);      // one more TTL after the child's end
var_dump($lock->isAcquired(), ephpm_kv_setnx('wd-fork', 'thief', 30));
var_dump($lock->release());
?>
--EXPECT--
child: refused
bool(true)
bool(false)
bool(true)
