--TEST--
ephpm_kv_fence refuses a zombie holder's stale fence after the next holder wrote
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
$a = Ephpm\Lock::acquire('invoice:42', 0.1);
ephpm_wait_expiry('invoice:42', 0.1, 0.15);         // A pauses past its lease
$b = Ephpm\Lock::acquire('invoice:42', 30);         // B takes over
var_dump($b->fence > $a->fence);
var_dump(ephpm_kv_fence('invoice-table', $b->fence)); // B writes
var_dump(ephpm_kv_fence('invoice-table', $a->fence)); // zombie A wakes up: refused
var_dump(ephpm_kv_fence('invoice-table', $b->fence)); // B again: still the highest
var_dump(ephpm_kv_fence('other-table', $a->fence));   // per resource
try {
    ephpm_kv_fence('', 1);
} catch (ValueError $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECT--
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
ephpm_kv_fence(): Argument #1 ($resource) must not be empty
