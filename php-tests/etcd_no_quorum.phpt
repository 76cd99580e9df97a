--TEST--
On etcd without quorum (two of three members SIGSTOPped), setnx is Ephpm\KvException UNAVAILABLE within ephpm.server_timeout, never false; the cluster answers again once they resume, and a retry of the setnx gets the lock (the timed-out one, if it landed, is taken back)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_only_on_etcd();
if (!is_dir((string)getenv('EPHPM_ETCD_DIR'))) die('skip needs the cluster build/phpt.sh etcd started (EPHPM_ETCD_DIR)'); ?>
--INI--
ephpm.server_timeout=1
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
$dir = getenv('EPHPM_ETCD_DIR');
$pids = trim(file_get_contents("$dir/m1/pid")) . ' ' . trim(file_get_contents("$dir/m2/pid"));
ephpm_etcd_wait_leader(); // a retry of this test starts while the last attempt's members settle
ephpm_kv_set('warm', 'up'); // connected before the members stop
exec("kill -STOP $pids");
$t = microtime(true);
try {
    var_dump(ephpm_kv_setnx('lock:x', 'A', 10));
} catch (Ephpm\KvException $e) {
    echo $e->getCode() === Ephpm\KvException::UNAVAILABLE ? 'UNAVAILABLE' : 'code ' . $e->getCode(), "\n";
}
$took = microtime(true) - $t;
exec("kill -CONT $pids");
echo $took < 2 ? "within the timeout\n" : "after {$took}s\n";
// the next tests need the cluster: wait until it has a leader again
for ($i = 0; $i < 100; $i++) {
    try {
        ephpm_kv_set('warm', 'again');
        break;
    } catch (Ephpm\KvException $e) {
        usleep(100000);
    }
}
var_dump(ephpm_kv_get('warm'));
ephpm_kv_del('warm');
// The timed-out setnx may have landed once the members resumed; the engine
// takes it back, so the lock is free for a retry: never false, nobody holds
// it. (A resumed member can force one more election: UNAVAILABLE again.)
for ($i = 0; ; $i++) {
    try {
        var_dump(ephpm_kv_setnx('lock:x', 'B', 10));
        break;
    } catch (Ephpm\KvException $e) {
        if ($i === 50) {
            throw $e;
        }
        usleep(100000);
    }
}
ephpm_kv_del('lock:x');
ephpm_etcd_wait_leader(); // the next test needs a settled cluster
?>
--EXPECT--
UNAVAILABLE
within the timeout
string(5) "again"
bool(true)
