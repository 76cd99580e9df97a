--TEST--
Negative, NAN, INF and TTLs over 100 years are a ValueError that says the maximum, and store nothing; tiny ones still expire
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
$calls = [
    'set' => fn($t) => ephpm_kv_set('k', 'v', $t),
    'setnx' => fn($t) => ephpm_kv_setnx('k', 'v', $t),
    'expire' => fn($t) => ephpm_kv_expire('k', $t),
    'expire_if_eq' => fn($t) => ephpm_kv_expire_if_eq('k', 'v', $t),
    'incr' => fn($t) => ephpm_kv_incr('k', 1, $t),
];
foreach ([-1, -0.5, NAN, INF, -INF, 1e30, PHP_INT_MAX] as $ttl) {
    foreach ($calls as $name => $call) {
        try {
            $call($ttl);
            echo "$name(", var_export($ttl, true), "): no error\n";
        } catch (ValueError $e) {
            echo $e->getMessage(), "\n";
        }
    }
}
var_dump(ephpm_kv_exists('k'));
// 1 ns rounds to a real expiry, never to 0 ("no expiry")
ephpm_kv_set('tiny', 'v', 1e-12);
ephpm_wait_expiry('tiny', 1e-12, 0.003); // server mode rounds up to 1 ms; a Redis expires a key only once its clock is past that ms
var_dump(ephpm_kv_get('tiny'));
?>
--EXPECTF--
ephpm_kv_set(): Argument #3 ($ttl) must be greater than or equal to 0
ephpm_kv_setnx(): Argument #3 ($ttl) must be greater than or equal to 0
ephpm_kv_expire(): Argument #2 ($ttl) must be greater than or equal to 0
ephpm_kv_expire_if_eq(): Argument #3 ($ttl) must be greater than or equal to 0
ephpm_kv_incr(): Argument #3 ($ttl) must be greater than or equal to 0
ephpm_kv_set(): Argument #3 ($ttl) must be greater than or equal to 0
ephpm_kv_setnx(): Argument #3 ($ttl) must be greater than or equal to 0
ephpm_kv_expire(): Argument #2 ($ttl) must be greater than or equal to 0
ephpm_kv_expire_if_eq(): Argument #3 ($ttl) must be greater than or equal to 0
ephpm_kv_incr(): Argument #3 ($ttl) must be greater than or equal to 0
ephpm_kv_set(): Argument #3 ($ttl) must be a finite number
ephpm_kv_setnx(): Argument #3 ($ttl) must be a finite number
ephpm_kv_expire(): Argument #2 ($ttl) must be a finite number
ephpm_kv_expire_if_eq(): Argument #3 ($ttl) must be a finite number
ephpm_kv_incr(): Argument #3 ($ttl) must be a finite number
ephpm_kv_set(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_setnx(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_expire(): Argument #2 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_expire_if_eq(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_incr(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_set(): Argument #3 ($ttl) must be greater than or equal to 0
ephpm_kv_setnx(): Argument #3 ($ttl) must be greater than or equal to 0
ephpm_kv_expire(): Argument #2 ($ttl) must be greater than or equal to 0
ephpm_kv_expire_if_eq(): Argument #3 ($ttl) must be greater than or equal to 0
ephpm_kv_incr(): Argument #3 ($ttl) must be greater than or equal to 0
ephpm_kv_set(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_setnx(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_expire(): Argument #2 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_expire_if_eq(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_incr(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_set(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_setnx(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_expire(): Argument #2 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_expire_if_eq(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
ephpm_kv_incr(): Argument #3 ($ttl) must be at most 3153600000 seconds (100 years)
bool(false)
NULL
