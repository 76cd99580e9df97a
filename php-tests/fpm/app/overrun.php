<?php
// The seeds' scenario across workers. role=overrun takes the lock with a
// 0.1 s TTL, overruns it, and releases only once another holder has taken
// the expired lock (so the late release always meets a live holder).
// role=worker holders have a long TTL and do a read-modify-write while they
// hold it. release=del is the bug, del_if_eq the fix. A worker reports
// "stolen" when its own lock was gone by the time it released.
$role = $_GET['role'];
$release = $_GET['release'];
$token = bin2hex(random_bytes(16));
$deadline = microtime(true) + 20;
while (!ephpm_kv_setnx('lock:overrun', $token, $role === 'overrun' ? 0.1 : 10)) {
    if (microtime(true) > $deadline) {
        exit('timeout');
    }
    usleep(5000);
}
if ($role === 'overrun') {
    do { // still "working" long after the lease ran out, until B holds it
        usleep(5000);
        $holder = ephpm_kv_get('lock:overrun');
    } while (($holder === null || $holder === $token) && microtime(true) < $deadline);
} else {
    $n = (int)ephpm_kv_get("overrun:counter:$release");
    usleep(100000);
    ephpm_kv_set("overrun:counter:$release", (string)($n + 1));
}
$stillMine = ephpm_kv_get('lock:overrun') === $token;
if ($release === 'del') {
    ephpm_kv_del('lock:overrun');
} else {
    ephpm_kv_del_if_eq('lock:overrun', $token);
}
echo $role === 'worker' && !$stillMine ? 'stolen' : 'ok';
