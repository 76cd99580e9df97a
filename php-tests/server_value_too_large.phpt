--TEST--
Server mode: a value over the server's --max-value-size is KvException::VALUE_TOO_LARGE, at any size, and the next call works
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$code = <<<'PHP'
foreach ($argv_sizes as $n) {
    try {
        ephpm_kv_set('big', str_repeat('x', $n));
        echo "$n: stored\n";
    } catch (Ephpm\KvException $e) {
        printf("%d: code %d%s, %s\n", $n, $e->getCode(),
            $e->getCode() === Ephpm\KvException::VALUE_TOO_LARGE ? ' (VALUE_TOO_LARGE)' : '', $e->getMessage());
    }
    var_dump(ephpm_kv_setnx('lock', 'token', 30), ephpm_kv_del_if_eq('lock', 'token'));
}
PHP;
// 1025 is refused by the store; 70000 is over the server's bulk limit too
// (it replies with a protocol error and hangs up).
$small = ephpm_test_server('--max-value-size', '1024');
echo ephpm_child("unix://$small", '$argv_sizes = [1024, 1025, 70000];' . $code), "\n";
// One byte over the default 1 MiB: the server hangs up mid-write.
$default = ephpm_test_server();
echo ephpm_child("unix://$default", '$argv_sizes = [1048577, 8 << 20];' . $code), "\n";
?>
--EXPECTF--
1024: stored
bool(true)
bool(true)
1025: code 4 (VALUE_TOO_LARGE), ephpm-kv: value is too large: 1025 bytes, the ephpm-kv server at unix://%s has --max-value-size 1024; raise the ephpm-kv server's --max-value-size or store smaller values
bool(true)
bool(true)
70000: code 4 (VALUE_TOO_LARGE), ephpm-kv: value is too large: 70000 bytes, the ephpm-kv server at unix://%s has --max-value-size 1024; raise the ephpm-kv server's --max-value-size or store smaller values
bool(true)
bool(true)
1048577: code 4 (VALUE_TOO_LARGE), ephpm-kv: value is too large: 1048577 bytes, the ephpm-kv server at unix://%s has --max-value-size 1048576; raise the ephpm-kv server's --max-value-size or store smaller values
bool(true)
bool(true)
8388608: code 4 (VALUE_TOO_LARGE), ephpm-kv: value is too large: 8388608 bytes, the ephpm-kv server at unix://%s has --max-value-size 1048576; raise the ephpm-kv server's --max-value-size or store smaller values
bool(true)
bool(true)
