--TEST--
ephpm_kv_scan(): a count outside 1 to 10000, a pattern over 64 KiB and a cursor that is not ?string are refused before the store is asked; a cursor the engine did not return is KvException::BAD_ARGUMENT, and $cursor is left as it was
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
foreach ([
    function () { $c = null; return ephpm_kv_scan($c, '', 0); },
    function () { $c = null; return ephpm_kv_scan($c, '', 10001); },
    function () { $c = null; return ephpm_kv_scan($c, '', -1); },
    function () { $c = null; return ephpm_kv_scan($c, str_repeat('*', 65537)); },
    function () { $c = 0; return ephpm_kv_scan($c); },
    function () { $c = []; return ephpm_kv_scan($c); },
    function () { $c = null; return ephpm_kv_scan($c, [], 10); },
    function () { $c = null; return ephpm_kv_scan($c, '', 10, 'extra'); },
] as $bad) {
    try {
        $bad();
        echo "accepted\n";
    } catch (Throwable $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
$cursor = 'not a cursor of this engine';
try {
    ephpm_kv_scan($cursor);
    echo "accepted\n";
} catch (Ephpm\KvException $e) {
    var_dump($e->getCode() === Ephpm\KvException::BAD_ARGUMENT);
}
var_dump($cursor);
$c = null;
var_dump(is_array(ephpm_kv_scan($c, str_repeat('*', 65536), 1)));
?>
--EXPECT--
ValueError: ephpm_kv_scan(): Argument #3 ($count) must be between 1 and 10000
ValueError: ephpm_kv_scan(): Argument #3 ($count) must be between 1 and 10000
ValueError: ephpm_kv_scan(): Argument #3 ($count) must be between 1 and 10000
ValueError: ephpm_kv_scan(): Argument #2 ($pattern) must not be longer than 65536 bytes
TypeError: ephpm_kv_scan(): Argument #1 ($cursor) must be of type ?string, int given
TypeError: ephpm_kv_scan(): Argument #1 ($cursor) must be of type ?string, array given
TypeError: ephpm_kv_scan(): Argument #2 ($pattern) must be of type string, array given
ArgumentCountError: ephpm_kv_scan() expects at most 3 arguments, 4 given
bool(true)
string(27) "not a cursor of this engine"
bool(true)
