--TEST--
Ephpm\Lock::acquire: name, random 128-bit token, fence; null while someone else holds it
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$lock = Ephpm\Lock::acquire('report', 30);
var_dump($lock instanceof Ephpm\Lock, $lock->name);
var_dump((bool)preg_match('/^[0-9a-f]{32}$/', $lock->token));
var_dump(ephpm_kv_get('report') === $lock->token);   // the stored value is the token
var_dump(is_int($lock->fence) && $lock->fence > 0);
var_dump(Ephpm\Lock::acquire('report'));            // held: null at once with wait 0
$other = Ephpm\Lock::acquire('other');
var_dump($other->token !== $lock->token);
try {
    $lock->token = 'forged';
} catch (Error $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
?>
--EXPECT--
bool(true)
string(6) "report"
bool(true)
bool(true)
bool(true)
NULL
bool(true)
Error: Cannot modify readonly property Ephpm\Lock::$token
