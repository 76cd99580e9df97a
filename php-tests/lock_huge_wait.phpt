--TEST--
Ephpm\Lock::acquire() with a huge wait waits for the holder (saturates), never gives up at once
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_on_etcd("the wait's saturation is the extension's (ephpm_wait_arg), the same on every engine, and five waits for an etcd lease take 7 s (session_ttl_settings waits for a holder there with lock_wait 1e10)"); ?>
--FILE--
<?php
require __DIR__ . '/ttl_waits.inc';
ttl_huge_waits();
?>
--EXPECT--
9223372035: acquired after the holder expired
10000000000.0: acquired after the holder expired
9.223372036854776E+18: acquired after the holder expired
1.0E+300: acquired after the holder expired
9223372036854775807: acquired after the holder expired
