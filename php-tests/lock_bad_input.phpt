--TEST--
Ephpm\Lock: empty name, ttl <= 0 or non-finite, negative wait are ValueErrors; no new, clone or serialize
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$calls = [
    fn() => Ephpm\Lock::acquire(''),
    fn() => Ephpm\Lock::acquire('x', 0),
    fn() => Ephpm\Lock::acquire('x', -1),
    fn() => Ephpm\Lock::acquire('x', NAN),
    fn() => Ephpm\Lock::acquire('x', INF),
    fn() => Ephpm\Lock::acquire('x', 1, -0.5),
    fn() => Ephpm\Lock::acquire('x', 1, INF),
    fn() => Ephpm\Lock::run('', fn() => 1),
    fn() => Ephpm\Lock::run('x', fn() => 1, 0),
    fn() => Ephpm\Lock::run('x', fn() => 1, 1, -1),
];
foreach ($calls as $call) {
    try {
        $call();
        echo "no error\n";
    } catch (ValueError $e) {
        echo $e->getMessage(), "\n";
    }
}
var_dump(ephpm_kv_exists('x'));
try {
    new Ephpm\Lock();
} catch (Error $e) {
    echo $e->getMessage(), "\n";
}
$lock = Ephpm\Lock::acquire('x');
try {
    clone $lock;
} catch (Error $e) {
    echo $e->getMessage(), "\n";
}
try {
    serialize($lock);
} catch (Exception $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECT--
Ephpm\Lock::acquire(): Argument #1 ($name) must not be empty
Ephpm\Lock::acquire(): Argument #2 ($ttl) must be greater than 0
Ephpm\Lock::acquire(): Argument #2 ($ttl) must be greater than 0
Ephpm\Lock::acquire(): Argument #2 ($ttl) must be a finite number
Ephpm\Lock::acquire(): Argument #2 ($ttl) must be at most 3153600000 seconds (100 years)
Ephpm\Lock::acquire(): Argument #3 ($wait) must be greater than or equal to 0
Ephpm\Lock::acquire(): Argument #3 ($wait) must be a finite number
Ephpm\Lock::run(): Argument #1 ($name) must not be empty
Ephpm\Lock::run(): Argument #3 ($ttl) must be greater than 0
Ephpm\Lock::run(): Argument #4 ($wait) must be greater than or equal to 0
bool(false)
Call to private Ephpm\Lock::__construct() from global scope
Trying to clone an uncloneable object of class Ephpm\Lock
Serialization of 'Ephpm\Lock' is not allowed
