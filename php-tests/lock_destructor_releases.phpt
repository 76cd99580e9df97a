--TEST--
A Lock that goes out of scope still held is released; one that was lost is not touched
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
function forgetful(): void
{
    $lock = Ephpm\Lock::acquire('job');
    var_dump(ephpm_kv_exists('job'));
    // no release()
}
forgetful();
var_dump(ephpm_kv_exists('job'));

function failing(): void
{
    $lock = Ephpm\Lock::acquire('job');
    throw new RuntimeException('work failed');
}
try {
    failing();
} catch (RuntimeException $e) {
    echo $e->getMessage(), "\n";
}
var_dump(ephpm_kv_exists('job'));

$lost = Ephpm\Lock::acquire('job', 30);
ephpm_kv_set('job', 'next holder');
unset($lost);
var_dump(ephpm_kv_get('job'));
?>
--EXPECT--
bool(true)
bool(false)
work failed
bool(false)
string(11) "next holder"
