--TEST--
Fixed-window rate limiting with ephpm_kv_incr's creation TTL
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
function allow(string $client, int $limit, float $window): bool
{
    return ephpm_kv_incr("rate:$client", 1, $window) <= $limit;
}
$verdicts = [];
for ($i = 0; $i < 5; $i++) {
    $verdicts[] = allow('10.0.0.1', 3, 0.2) ? 'ok' : 'limited';
}
echo implode(' ', $verdicts), "\n";
usleep(250000); // next window
var_dump(allow('10.0.0.1', 3, 0.2));
?>
--EXPECT--
ok ok ok limited limited
bool(true)
