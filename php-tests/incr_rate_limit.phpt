--TEST--
Fixed-window rate limiting with ephpm_kv_incr's creation TTL
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
function allow(string $client, int $limit, float $window): bool
{
    return ephpm_kv_incr("rate:$client", 1, $window) <= $limit;
}
$verdicts = [];
for ($i = 0; $i < 5; $i++) {
    $verdicts[] = allow('10.0.0.1', 3, 0.2) ? 'ok' : 'limited';
}
echo implode(' ', $verdicts), "\n";
ephpm_wait_expiry('rate:10.0.0.1', 0.2, 0.25); // next window
var_dump(allow('10.0.0.1', 3, 0.2));
?>
--EXPECT--
ok ok ok limited limited
bool(true)
