--TEST--
Ephpm\Barrier::wait() with 1 party passes at once, every time; with 2 parties and one caller it returns false once the timeout passes, not before
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$name = 'barrier-single:' . getmypid();
$t = microtime(true);
var_dump(Ephpm\Barrier::wait($name, 1, 10), Ephpm\Barrier::wait($name, 1, 10), Ephpm\Barrier::wait($name, 1, 0.001));
var_dump(microtime(true) - $t < 5); // not the 10 s timeout
$t = microtime(true);
var_dump(Ephpm\Barrier::wait("$name:2", 2, 0.3));
$took = microtime(true) - $t;
var_dump($took >= 0.3 ?: $took, $took < 5 ?: $took);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
