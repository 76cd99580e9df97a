--TEST--
Ephpm\Lock::acquireAll: an empty array, a duplicate, an empty or too long name are ValueErrors, a non-string a TypeError, bad ttl/wait ValueErrors; nothing is taken; LockSet::get() of a non-member; no new, clone or serialize
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
ephpm_kv_flush(); // server modes share one store with the tests before
$calls = [
    fn() => Ephpm\Lock::acquireAll([]),
    fn() => Ephpm\Lock::acquireAll(['ls:a', 'ls:b', 'ls:a']),
    fn() => Ephpm\Lock::acquireAll(['ls:a', '']),
    fn() => Ephpm\Lock::acquireAll(['ls:a', str_repeat('x', 65537)]),
    fn() => Ephpm\Lock::acquireAll(['ls:a', 1]),
    fn() => Ephpm\Lock::acquireAll(['ls:a', null]),
    fn() => Ephpm\Lock::acquireAll(['ls:a', new stdClass()]),
    fn() => Ephpm\Lock::acquireAll(['ls:a'], 0),
    fn() => Ephpm\Lock::acquireAll(['ls:a'], NAN),
    fn() => Ephpm\Lock::acquireAll(['ls:a'], 1, -1),
    fn() => Ephpm\Lock::acquireAll('ls:a'),
];
foreach ($calls as $call) {
    try {
        $call();
        echo "no error\n";
    } catch (TypeError | ValueError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
var_dump(ephpm_kv_exists('ls:a'), ephpm_kv_exists('ls:b'));

$set = Ephpm\Lock::acquireAll(['ls:a']);
try {
    $set->get('ls:b');
} catch (ValueError $e) {
    echo $e->getMessage(), "\n";
}
try {
    $set->refresh(-1);
} catch (ValueError $e) {
    echo $e->getMessage(), "\n";
}
try {
    new Ephpm\LockSet();
} catch (Error $e) {
    echo $e->getMessage(), "\n";
}
try {
    clone $set;
} catch (Error $e) {
    echo $e->getMessage(), "\n";
}
try {
    serialize($set);
} catch (Exception $e) {
    echo $e->getMessage(), "\n";
}
try {
    $set->locks = [];
} catch (Error $e) {
    echo $e->getMessage(), "\n";
}
var_dump($set->release());
?>
--EXPECT--
ValueError: Ephpm\Lock::acquireAll(): Argument #1 ($names) must not be empty
ValueError: Ephpm\Lock::acquireAll(): Argument #1 ($names) must not contain "ls:a" more than once
ValueError: Ephpm\Lock::acquireAll(): Argument #1 ($names) must not contain an empty name
ValueError: Ephpm\Lock::acquireAll(): Argument #1 ($names) must not contain a name longer than 65536 bytes
TypeError: Ephpm\Lock::acquireAll(): Argument #1 ($names) must contain only strings, int given
TypeError: Ephpm\Lock::acquireAll(): Argument #1 ($names) must contain only strings, null given
TypeError: Ephpm\Lock::acquireAll(): Argument #1 ($names) must contain only strings, stdClass given
ValueError: Ephpm\Lock::acquireAll(): Argument #2 ($ttl) must be greater than 0
ValueError: Ephpm\Lock::acquireAll(): Argument #2 ($ttl) must be a finite number
ValueError: Ephpm\Lock::acquireAll(): Argument #3 ($wait) must be greater than or equal to 0
TypeError: Ephpm\Lock::acquireAll(): Argument #1 ($names) must be of type array, string given
bool(false)
bool(false)
Ephpm\LockSet::get(): Argument #1 ($name) is not a member of this set
Ephpm\LockSet::refresh(): Argument #1 ($ttl) must be greater than 0
Call to private Ephpm\LockSet::__construct() from global scope
Trying to clone an uncloneable object of class Ephpm\LockSet
Serialization of 'Ephpm\LockSet' is not allowed
Cannot modify readonly property Ephpm\LockSet::$locks
bool(true)
