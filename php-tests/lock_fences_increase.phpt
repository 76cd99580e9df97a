--TEST--
Fences are strictly increasing across acquisitions and names, and survive flush
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$last = 0;
$ok = true;
foreach (['a', 'b', 'a', 'a', 'c', 'b'] as $name) {
    $lock = Ephpm\Lock::acquire($name);
    $ok = $ok && $lock->fence > $last;
    $last = $lock->fence;
    $lock->release();
}
var_dump($ok);
ephpm_kv_flush();
var_dump(Ephpm\Lock::acquire('a')->fence > $last);
?>
--EXPECT--
bool(true)
bool(true)
