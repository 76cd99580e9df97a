<?php
// The seeds' scenario across workers. role=overrun holds the lock past its
// short TTL, then releases; role=worker holders have a long TTL and do a
// read-modify-write while they hold it. release=del is the bug, del_if_eq
// the fix. A worker reports "stolen" when its own lock was gone at release.
$role = $_GET['role'];
$release = $_GET['release'];
$token = bin2hex(random_bytes(16));
$ttl = $role === 'overrun' ? 0.1 : 10;
$deadline = microtime(true) + 20;
while (!ephpm_kv_setnx('lock:overrun', $token, $ttl)) {
    if (microtime(true) > $deadline) {
        exit('timeout');
    }
    usleep(5000);
}
if ($role === 'overrun') {
    usleep(300000); // overruns its 0.1 s lease
} else {
    $n = (int)ephpm_kv_get('overrun:counter');
    usleep(100000);
    ephpm_kv_set('overrun:counter', (string)($n + 1));
}
$stillMine = ephpm_kv_get('lock:overrun') === $token;
if ($release === 'del') {
    ephpm_kv_del('lock:overrun');
} else {
    ephpm_kv_del_if_eq('lock:overrun', $token);
}
echo $role === 'worker' && !$stillMine ? 'stolen' : 'ok';
