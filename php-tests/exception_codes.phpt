--TEST--
Ephpm\KvException's constants name the codes the store actually throws
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['server'], 'FULL and VALUE_TOO_LARGE come from ephpm.memory_limit and ephpm.max_value_size, which a server does not read (server_store_full and server_value_too_large cover its flags)'); ?>
--INI--
ephpm.max_value_size=1K
ephpm.memory_limit=8K
ephpm.compress_min=0
--FILE--
<?php
require __DIR__ . '/server.inc';
foreach ((new ReflectionClass(Ephpm\KvException::class))->getConstants() as $name => $value) {
    echo "$name = $value\n";
}
function code_of(callable $fn): string
{
    try {
        $fn();
        return 'no exception';
    } catch (Ephpm\KvException $e) {
        $names = array_flip((new ReflectionClass($e))->getConstants());
        return $e->getCode() . ' = ' . ($names[$e->getCode()] ?? '(no constant)');
    }
}
echo "\n";
echo 'VALUE_TOO_LARGE: ', code_of(fn() => ephpm_kv_set('big', str_repeat('x', 1025))), "\n";
echo 'FULL: ', code_of(function () {
    // 8K fill the map; the segment (shm run) is ephpm.shm_size, 64M
    for ($i = 0; $i < 100000; $i++) {
        ephpm_kv_set("k$i", str_repeat('x', 1000));
    }
}), "\n";
ephpm_kv_flush();
ephpm_kv_set('text', 'abc');
echo 'NOT_INTEGER: ', code_of(fn() => ephpm_kv_incr('text')), "\n";
ephpm_kv_set('n', (string) PHP_INT_MAX);
echo 'OVERFLOW: ', code_of(fn() => ephpm_kv_incr('n')), "\n";
// Each in its own process: the store's configuration is fixed at first use.
$child = 'try { ephpm_kv_get("k"); } catch (Ephpm\KvException $e) { echo $e->getCode(), " ", $e->getCode() === %s ? "matches" : "differs"; }';
echo 'CONFIG: ', ephpm_child('unix:relative.sock', sprintf($child, 'Ephpm\KvException::CONFIG')), "\n";
echo 'UNAVAILABLE: ', ephpm_child('unix:///nonexistent/kv.sock', sprintf($child, 'Ephpm\KvException::UNAVAILABLE')), "\n";
?>
--EXPECT--
INTERNAL = 1
EMPTY_KEY = 2
KEY_TOO_LARGE = 3
VALUE_TOO_LARGE = 4
BAD_TTL = 5
FULL = 6
NOT_INTEGER = 7
OVERFLOW = 8
CONFIG = 9
UNAVAILABLE = 10
BAD_ARGUMENT = 11
WRONG_TYPE = 12
CORRUPT = 13

VALUE_TOO_LARGE: 4 = VALUE_TOO_LARGE
FULL: 6 = FULL
NOT_INTEGER: 7 = NOT_INTEGER
OVERFLOW: 8 = OVERFLOW
CONFIG: 9 matches
UNAVAILABLE: 10 matches
