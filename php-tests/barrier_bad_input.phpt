--TEST--
Ephpm\Barrier::wait(): an empty or too long name, parties outside 1 to 1024, a timeout that is not above 0 and at most 100 years are ValueErrors before the store is asked; no new
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
$b = 'barrier-bad:' . getmypid();
$calls = [
    fn() => Ephpm\Barrier::wait('', 2, 1),
    fn() => Ephpm\Barrier::wait(str_repeat('k', 65537), 2, 1),
    fn() => Ephpm\Barrier::wait($b, 0, 1),
    fn() => Ephpm\Barrier::wait($b, -1, 1),
    fn() => Ephpm\Barrier::wait($b, 1025, 1),
    fn() => Ephpm\Barrier::wait($b, PHP_INT_MAX, 1),
    fn() => Ephpm\Barrier::wait($b, 2, 0),
    fn() => Ephpm\Barrier::wait($b, 2, -1),
    fn() => Ephpm\Barrier::wait($b, 2, -0.0),
    fn() => Ephpm\Barrier::wait($b, 2, NAN),
    fn() => Ephpm\Barrier::wait($b, 2, INF),
    fn() => Ephpm\Barrier::wait($b, 2, 3153600001),
    fn() => Ephpm\Barrier::wait($b, '2', 1),
    fn() => Ephpm\Barrier::wait($b, 2),
];
foreach ($calls as $call) {
    try {
        $call();
        echo "no error\n";
    } catch (ValueError | TypeError | ArgumentCountError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
var_dump(ephpm_kv_exists($b));
try {
    new Ephpm\Barrier();
} catch (Error $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECT--
ValueError: Ephpm\Barrier::wait(): Argument #1 ($name) must not be empty
ValueError: Ephpm\Barrier::wait(): Argument #1 ($name) must not be longer than 65536 bytes
ValueError: Ephpm\Barrier::wait(): Argument #2 ($parties) must be between 1 and 1024
ValueError: Ephpm\Barrier::wait(): Argument #2 ($parties) must be between 1 and 1024
ValueError: Ephpm\Barrier::wait(): Argument #2 ($parties) must be between 1 and 1024
ValueError: Ephpm\Barrier::wait(): Argument #2 ($parties) must be between 1 and 1024
ValueError: Ephpm\Barrier::wait(): Argument #3 ($timeout) must be greater than 0
ValueError: Ephpm\Barrier::wait(): Argument #3 ($timeout) must be greater than 0
ValueError: Ephpm\Barrier::wait(): Argument #3 ($timeout) must be greater than 0
ValueError: Ephpm\Barrier::wait(): Argument #3 ($timeout) must be a finite number
ValueError: Ephpm\Barrier::wait(): Argument #3 ($timeout) must be at most 3153600000 seconds (100 years)
ValueError: Ephpm\Barrier::wait(): Argument #3 ($timeout) must be at most 3153600000 seconds (100 years)
TypeError: Ephpm\Barrier::wait(): Argument #2 ($parties) must be of type int, string given
ArgumentCountError: Ephpm\Barrier::wait() expects exactly 3 arguments, 2 given
bool(false)
Call to private Ephpm\Barrier::__construct() from global scope
