<?php
// lock -> read-modify-write a shared counter -> release. With ?lock=0 the
// same without the lock, on another counter: the driver's proof that the
// processes really interleave, so that only the lock keeps the count exact.
$locked = ($_GET['lock'] ?? '1') !== '0';
$key = $locked ? 'counter' : 'counter:unlocked';
$lock = $locked ? Ephpm\Lock::acquire('lock:counter', 10, 30) ?? throw new RuntimeException('lock wait ran out') : null;
$n = (int)ephpm_kv_get($key);
usleep(20000);
ephpm_kv_set($key, (string)($n + 1));
$lock?->release();
echo getmypid();
