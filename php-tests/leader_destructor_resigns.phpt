--TEST--
A Leader that goes out of scope not resigned (forgotten, or an exception unwinding past it) is given back at once; one whose leadership was lost leaves the next leader alone
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
$e = 'leader-dtor:' . getmypid();
function forgetful(string $e): void
{
    $leader = Ephpm\Leader::campaign($e, 'forgetful', 30);
    var_dump(Ephpm\Leader::current($e)['value']);
    // no resign()
}
forgetful($e);
var_dump(Ephpm\Leader::current($e), ephpm_kv_exists($e));

function failing(string $e): void
{
    $leader = Ephpm\Leader::campaign($e, 'failing', 30);
    throw new RuntimeException('work failed');
}
try {
    failing($e);
} catch (RuntimeException $ex) {
    echo $ex->getMessage(), "\n";
}
var_dump(Ephpm\Leader::current($e));

// Lost: its TTL ran out and another leads now.
$ttl = ephpm_test_on_etcd() ? 1.0 : 0.2;
$lost = Ephpm\Leader::campaign($e, 'lost', $ttl);
ephpm_wait_expiry($e, $ttl, $ttl + 0.1);
$next = Ephpm\Leader::campaign($e, 'next', 30);
unset($lost);
var_dump(Ephpm\Leader::current($e)['value'], $next->isLeader());
var_dump($next->resign());
?>
--EXPECT--
string(9) "forgetful"
NULL
bool(false)
work failed
NULL
string(4) "next"
bool(true)
bool(true)
