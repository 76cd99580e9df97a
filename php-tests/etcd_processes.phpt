--TEST--
On etcd: a lock held by one PHP process is held for another, released only with its token, and the next holder's fence is larger; a sub-second TTL is a whole-second lease, longer than asked and never "no expiry"
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_only_on_etcd(); ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
// Another PHP process on the same cluster: runs $code, returns its output.
function other(string $code): string
{
    $cmd = [PHP_BINARY, '-n', '-d', 'extension=' . realpath(__DIR__ . '/../build/ephpm.so'),
        '-d', 'ephpm.library=' . ini_get('ephpm.library'), '-d', 'ephpm.server=' . ini_get('ephpm.server'), '-r', $code];
    $p = proc_open($cmd, [1 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]);
    proc_close($p);
    return trim((string)$out);
}

ephpm_etcd_wait_leader(); // etcd_no_quorum, just before, resumed two members
ephpm_kv_flush();
var_dump(ephpm_kv_setnx('lock:report', 'A', 30));
echo 'another process: ', other('var_export(ephpm_kv_setnx("lock:report", "C", 30));'), "\n"; // held
var_dump(ephpm_kv_del_if_eq('lock:report', 'B'));   // not the holder's token
var_dump(ephpm_kv_del_if_eq('lock:report', 'A'));
echo 'another process: ', other('var_export(ephpm_kv_setnx("lock:report", "C", 30));'), "\n"; // free now
var_dump(ephpm_kv_get('lock:report'));
var_dump(ephpm_kv_del_if_eq('lock:report', 'A'));   // a late release does not free it
$ttl = ephpm_kv_ttl('lock:report');
var_dump($ttl >= 28 && $ttl <= 30);                // whole seconds of the 30 s lease

// A 0.2 s TTL becomes the cluster's shortest lease (1 s here): still there
// after 0.3 s, with a ttl() of at most 1 s, and gone later.
var_dump(ephpm_kv_setnx('short', 'v', 0.2));
$t = ephpm_kv_ttl('short');
var_dump($t >= 0 && $t <= 1);
usleep(300000);
var_dump(ephpm_kv_exists('short'));
ephpm_wait_expiry('short', 1, 0);
var_dump(ephpm_kv_exists('short'));

$lock = Ephpm\Lock::acquire('job', 10);
echo 'another process waits 0.3 s: ', other('var_export(Ephpm\Lock::acquire("job", 10, 0.3));'), "\n";
$fence = $lock->fence;
var_dump($lock->release());
$next = (int)other('echo Ephpm\Lock::acquire("job", 10)->fence;'); // released at that process's end
var_dump($next > $fence, ephpm_kv_exists('job'));
var_dump(ephpm_kv_fence('db', $next), ephpm_kv_fence('db', $fence));
var_dump(ephpm_kv_stats()['keys']); // lock:report (fence records are not keys)
ephpm_kv_flush();
?>
--EXPECT--
bool(true)
another process: false
bool(false)
bool(true)
another process: true
string(1) "C"
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
another process waits 0.3 s: NULL
bool(true)
bool(true)
bool(false)
bool(true)
bool(false)
int(1)
