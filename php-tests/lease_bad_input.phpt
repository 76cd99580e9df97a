--TEST--
ReadWriteLock, Semaphore and ephpm_kv_rate_limit: bad names, ttl <= 0, permits and limits out of range, bad windows and waits are ValueErrors or TypeErrors, before the store is asked; no new, clone or serialize
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
$calls = [
    fn() => Ephpm\ReadWriteLock::read(''),
    fn() => Ephpm\ReadWriteLock::read(str_repeat('k', 65537)),
    fn() => Ephpm\ReadWriteLock::read('x', 0),
    fn() => Ephpm\ReadWriteLock::write('x', -1),
    fn() => Ephpm\ReadWriteLock::write('x', NAN),
    fn() => Ephpm\ReadWriteLock::write('x', INF),
    fn() => Ephpm\ReadWriteLock::write('x', 1, -0.5),
    fn() => Ephpm\ReadWriteLock::read('x', 1, INF),
    fn() => Ephpm\Semaphore::acquire('', 2),
    fn() => Ephpm\Semaphore::acquire('x', 0),
    fn() => Ephpm\Semaphore::acquire('x', -3),
    fn() => Ephpm\Semaphore::acquire('x', 1025),
    fn() => Ephpm\Semaphore::acquire('x', 2, 0),
    fn() => Ephpm\Semaphore::acquire('x', 2, 1, -1),
    fn() => Ephpm\Semaphore::holders(''),
    fn() => ephpm_kv_rate_limit('', 1, 1),
    fn() => ephpm_kv_rate_limit('x', 0, 1),
    fn() => ephpm_kv_rate_limit('x', 10001, 1),
    fn() => ephpm_kv_rate_limit('x', 1, 0),
    fn() => ephpm_kv_rate_limit('x', 1, -2),
    fn() => ephpm_kv_rate_limit('x', 1, 0.0),
    fn() => ephpm_kv_rate_limit('x', 1, NAN),
    fn() => ephpm_kv_rate_limit('x', 1, 3153600001),
    fn() => Ephpm\Semaphore::acquire('x', '2'),
    fn() => ephpm_kv_rate_limit('x', 1, '1'),
    fn() => Ephpm\ReadWriteLock::read('x')->refresh(0),
];
foreach ($calls as $call) {
    try {
        $call();
        echo "no error\n";
    } catch (ValueError | TypeError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
var_dump(ephpm_kv_exists('x'));
foreach ([Ephpm\ReadWriteLock::class, Ephpm\Semaphore::class] as $class) {
    try {
        new $class();
    } catch (Error $e) {
        echo $e->getMessage(), "\n";
    }
}
$r = Ephpm\ReadWriteLock::read('x');
$s = Ephpm\Semaphore::acquire('y', 2);
foreach ([$r, $s] as $held) {
    try {
        clone $held;
    } catch (Error $e) {
        echo $e->getMessage(), "\n";
    }
    try {
        serialize($held);
    } catch (Exception $e) {
        echo $e->getMessage(), "\n";
    }
    try {
        $held->name = 'z';
    } catch (Error $e) {
        echo $e->getMessage(), "\n";
    }
}
?>
--EXPECT--
ValueError: Ephpm\ReadWriteLock::read(): Argument #1 ($name) must not be empty
ValueError: Ephpm\ReadWriteLock::read(): Argument #1 ($name) must not be longer than 65536 bytes
ValueError: Ephpm\ReadWriteLock::read(): Argument #2 ($ttl) must be greater than 0
ValueError: Ephpm\ReadWriteLock::write(): Argument #2 ($ttl) must be greater than 0
ValueError: Ephpm\ReadWriteLock::write(): Argument #2 ($ttl) must be a finite number
ValueError: Ephpm\ReadWriteLock::write(): Argument #2 ($ttl) must be at most 3153600000 seconds (100 years)
ValueError: Ephpm\ReadWriteLock::write(): Argument #3 ($wait) must be greater than or equal to 0
ValueError: Ephpm\ReadWriteLock::read(): Argument #3 ($wait) must be a finite number
ValueError: Ephpm\Semaphore::acquire(): Argument #1 ($name) must not be empty
ValueError: Ephpm\Semaphore::acquire(): Argument #2 ($permits) must be between 1 and 1024
ValueError: Ephpm\Semaphore::acquire(): Argument #2 ($permits) must be between 1 and 1024
ValueError: Ephpm\Semaphore::acquire(): Argument #2 ($permits) must be between 1 and 1024
ValueError: Ephpm\Semaphore::acquire(): Argument #3 ($ttl) must be greater than 0
ValueError: Ephpm\Semaphore::acquire(): Argument #4 ($wait) must be greater than or equal to 0
ValueError: Ephpm\Semaphore::holders(): Argument #1 ($name) must not be empty
ValueError: ephpm_kv_rate_limit(): Argument #1 ($key) must not be empty
ValueError: ephpm_kv_rate_limit(): Argument #2 ($limit) must be between 1 and 10000
ValueError: ephpm_kv_rate_limit(): Argument #2 ($limit) must be between 1 and 10000
ValueError: ephpm_kv_rate_limit(): Argument #3 ($window) must be greater than 0
ValueError: ephpm_kv_rate_limit(): Argument #3 ($window) must be greater than 0
ValueError: ephpm_kv_rate_limit(): Argument #3 ($window) must be greater than 0
ValueError: ephpm_kv_rate_limit(): Argument #3 ($window) must be a finite number
ValueError: ephpm_kv_rate_limit(): Argument #3 ($window) must be at most 3153600000 seconds (100 years)
TypeError: Ephpm\Semaphore::acquire(): Argument #2 ($permits) must be of type int, string given
TypeError: ephpm_kv_rate_limit(): Argument #3 ($window) must be of type int|float, string given
ValueError: Ephpm\ReadWriteLock::refresh(): Argument #1 ($ttl) must be greater than 0
bool(false)
Call to private Ephpm\ReadWriteLock::__construct() from global scope
Call to private Ephpm\Semaphore::__construct() from global scope
Trying to clone an uncloneable object of class Ephpm\ReadWriteLock
Serialization of 'Ephpm\ReadWriteLock' is not allowed
Cannot modify readonly property Ephpm\ReadWriteLock::$name
Trying to clone an uncloneable object of class Ephpm\Semaphore
Serialization of 'Ephpm\Semaphore' is not allowed
Cannot modify readonly property Ephpm\Semaphore::$name
