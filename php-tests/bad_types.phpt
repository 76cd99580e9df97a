--TEST--
Wrong argument types are a TypeError from arginfo/ZPP
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
$calls = [
    fn() => ephpm_kv_get([]),
    fn() => ephpm_kv_set('k', new stdClass),
    fn() => ephpm_kv_set('k', 'v', 'soon'),
    fn() => ephpm_kv_setnx('k', 'v', null),
    fn() => ephpm_kv_incr('k', 1.5),
    fn() => ephpm_kv_del_if_eq('k', 42),
    fn() => ephpm_kv_expire('k'),
];
foreach ($calls as $call) {
    try {
        $call();
        echo "no error\n";
    } catch (TypeError|ArgumentCountError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
?>
--EXPECT--
TypeError: ephpm_kv_get(): Argument #1 ($key) must be of type string, array given
TypeError: ephpm_kv_set(): Argument #2 ($value) must be of type string, stdClass given
TypeError: ephpm_kv_set(): Argument #3 ($ttl) must be of type int|float, string given
TypeError: ephpm_kv_setnx(): Argument #3 ($ttl) must be of type int|float, null given
TypeError: ephpm_kv_incr(): Argument #2 ($by) must be of type int, float given
TypeError: ephpm_kv_del_if_eq(): Argument #2 ($token) must be of type string, int given
ArgumentCountError: ephpm_kv_expire() expects exactly 2 arguments, 1 given
