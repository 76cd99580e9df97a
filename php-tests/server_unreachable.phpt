--TEST--
Server mode: an unreachable server is Ephpm\KvException (code 10), never false from setnx
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
ephpm.server=unix:///nonexistent/ephpm-kv.sock
ephpm.server_timeout=0.2
--FILE--
<?php
// Loading the Go library is the first call's (seconds under valgrind): done
// before the clock starts, so the bounds time only the failing calls.
try {
    ephpm_kv_get('warm-up');
} catch (Ephpm\KvException) {
}
// Waiting out Lock::acquire's 20 s $wait instead of failing at once takes
// 20 s: the 5 s bound catches that with room for a slow machine.
foreach ([
    'setnx' => fn() => ephpm_kv_setnx('lock', 'token', 30),
    'del_if_eq' => fn() => ephpm_kv_del_if_eq('lock', 'token'),
    'Lock::acquire' => fn() => Ephpm\Lock::acquire('lock', 30, 20),
] as $name => $call) {
    $start = microtime(true);
    try {
        var_dump($call());
    } catch (Ephpm\KvException $e) {
        printf("%s: %d %s\n", $name, $e->getCode(), $e->getMessage());
    }
    var_dump(microtime(true) - $start < 5); // no spinning for the lock wait
}
var_dump(ephpm_kv_stats() ?? null);
?>
--EXPECTF--
setnx: 10 ephpm-kv: store unavailable: cannot reach the ephpm-kv server at unix:///nonexistent/ephpm-kv.sock: %s
bool(true)
del_if_eq: 10 ephpm-kv: store unavailable: cannot reach the ephpm-kv server at unix:///nonexistent/ephpm-kv.sock: %s
bool(true)
Lock::acquire: 10 ephpm-kv: store unavailable: cannot reach the ephpm-kv server at unix:///nonexistent/ephpm-kv.sock: %s
bool(true)

Fatal error: Uncaught Ephpm\KvException: ephpm-kv: store unavailable: %s
Stack trace:
#0 %s: ephpm_kv_stats()
#1 {main}
  thrown in %s on line %d
