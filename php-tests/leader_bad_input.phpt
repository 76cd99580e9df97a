--TEST--
Ephpm\Leader: an empty or too long election, a ttl that is not above 0 and at most 100 years, a negative or non-finite wait are ValueErrors before the store is asked; no new, clone, serialize, dynamic or written properties; current() of a key holding something else is WRONG_TYPE
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
$e = 'leader-bad:' . getmypid();
$calls = [
    fn() => Ephpm\Leader::campaign('', 'v'),
    fn() => Ephpm\Leader::campaign(str_repeat('k', 65537), 'v'),
    fn() => Ephpm\Leader::campaign($e, 'v', 0),
    fn() => Ephpm\Leader::campaign($e, 'v', -1),
    fn() => Ephpm\Leader::campaign($e, 'v', NAN),
    fn() => Ephpm\Leader::campaign($e, 'v', INF),
    fn() => Ephpm\Leader::campaign($e, 'v', 3153600001),
    fn() => Ephpm\Leader::campaign($e, 'v', 1, -0.5),
    fn() => Ephpm\Leader::campaign($e, 'v', 1, NAN),
    fn() => Ephpm\Leader::campaign($e, 'v', 1, INF),
    fn() => Ephpm\Leader::campaign($e, 5),
    fn() => Ephpm\Leader::current(''),
    fn() => Ephpm\Leader::current(str_repeat('k', 65537)),
    fn() => Ephpm\Leader::campaign($e, 'v')->refresh(0),
    fn() => Ephpm\Leader::campaign($e, 'v')->refresh(NAN),
];
foreach ($calls as $call) {
    try {
        $call();
        echo "no error\n";
    } catch (ValueError | TypeError $ex) {
        echo get_class($ex), ': ', $ex->getMessage(), "\n";
    }
}
var_dump(ephpm_kv_exists($e)); // the refresh() leaders were given back on destruction
try {
    new Ephpm\Leader();
} catch (Error $ex) {
    echo $ex->getMessage(), "\n";
}
$leader = Ephpm\Leader::campaign($e, 'v');
try {
    clone $leader;
} catch (Error $ex) {
    echo $ex->getMessage(), "\n";
}
try {
    serialize($leader);
} catch (Exception $ex) {
    echo $ex->getMessage(), "\n";
}
try {
    $leader->foo = 1;
} catch (Error $ex) {
    echo $ex->getMessage(), "\n";
}
try {
    $leader->term = 1;
} catch (Error $ex) {
    echo $ex->getMessage(), "\n";
}
var_dump($leader->resign());
// A key holding something else is no election.
ephpm_kv_set($e, 'plain value');
try {
    Ephpm\Leader::current($e);
} catch (Ephpm\KvException $ex) {
    echo $ex->getCode() === Ephpm\KvException::WRONG_TYPE ? 'WRONG_TYPE' : $ex->getCode(), "\n";
}
var_dump(Ephpm\Leader::campaign($e, 'v'));
ephpm_kv_del($e);
?>
--EXPECT--
ValueError: Ephpm\Leader::campaign(): Argument #1 ($election) must not be empty
ValueError: Ephpm\Leader::campaign(): Argument #1 ($election) must not be longer than 65536 bytes
ValueError: Ephpm\Leader::campaign(): Argument #3 ($ttl) must be greater than 0
ValueError: Ephpm\Leader::campaign(): Argument #3 ($ttl) must be greater than 0
ValueError: Ephpm\Leader::campaign(): Argument #3 ($ttl) must be a finite number
ValueError: Ephpm\Leader::campaign(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ValueError: Ephpm\Leader::campaign(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ValueError: Ephpm\Leader::campaign(): Argument #4 ($wait) must be greater than or equal to 0
ValueError: Ephpm\Leader::campaign(): Argument #4 ($wait) must be a finite number
ValueError: Ephpm\Leader::campaign(): Argument #4 ($wait) must be a finite number
TypeError: Ephpm\Leader::campaign(): Argument #2 ($value) must be of type string, int given
ValueError: Ephpm\Leader::current(): Argument #1 ($election) must not be empty
ValueError: Ephpm\Leader::current(): Argument #1 ($election) must not be longer than 65536 bytes
ValueError: Ephpm\Leader::refresh(): Argument #1 ($ttl) must be greater than 0
ValueError: Ephpm\Leader::refresh(): Argument #1 ($ttl) must be a finite number
bool(false)
Call to private Ephpm\Leader::__construct() from global scope
Trying to clone an uncloneable object of class Ephpm\Leader
Serialization of 'Ephpm\Leader' is not allowed
Cannot create dynamic property Ephpm\Leader::$foo
Cannot modify readonly property Ephpm\Leader::$term
bool(true)
WRONG_TYPE
NULL
