<?php
// lock -> read-modify-write a shared counter -> release.
$lock = Ephpm\Lock::acquire('lock:counter', 10, 30) ?? throw new RuntimeException('lock wait ran out');
$n = (int)ephpm_kv_get('counter');
usleep(20000);
ephpm_kv_set('counter', (string)($n + 1));
$lock->release();
echo getmypid();
