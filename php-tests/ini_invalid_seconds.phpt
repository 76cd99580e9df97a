--TEST--
Seconds settings that cannot be represented are refused with a warning (the default at startup), never wrapped; 1e-12 and huge waits are accepted
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
ephpm.session_lock_ttl=1e10
ephpm.session_lock_wait=abc
ephpm.server_timeout=-1
--FILE--
<?php
var_dump(ini_get('ephpm.session_lock_ttl'), ini_get('ephpm.session_lock_wait'), ini_get('ephpm.server_timeout'));
foreach ([
    ['ephpm.session_lock_ttl', 'NAN'], ['ephpm.session_lock_ttl', 'INF'], ['ephpm.session_lock_ttl', '0'],
    ['ephpm.session_lock_ttl', '-0.0'], ['ephpm.session_lock_ttl', '3153600000.5'],
    ['ephpm.session_lock_ttl', '18446744074'], ['ephpm.session_lock_ttl', '30s'],
    ['ephpm.session_lock_wait', '-1'], ['ephpm.session_lock_wait', '1e400'],
    // accepted: the maximum, a TTL that rounds up to 1 ns, waits that saturate
    ['ephpm.session_lock_ttl', '3153600000'], ['ephpm.session_lock_ttl', '1e-12'],
    ['ephpm.session_lock_wait', '0'], ['ephpm.session_lock_wait', '1e300'],
] as [$name, $value]) {
    $old = ini_set($name, $value);
    echo "$name=$value: ", $old === false ? 'refused' : 'accepted', ', now ', ini_get($name), "\n";
}
?>
--EXPECTF--
Warning: PHP Startup: Invalid "ephpm.server_timeout" setting "-1": must be greater than 0 in %s

Warning: PHP Startup: Invalid "ephpm.session_lock_ttl" setting "1e10": must be at most 3153600000 seconds (100 years) in %s

Warning: PHP Startup: Invalid "ephpm.session_lock_wait" setting "abc": must be a number of seconds in %s
string(2) "30"
string(2) "30"
string(1) "1"

Warning: ini_set(): Invalid "ephpm.session_lock_ttl" setting "NAN": must be a number of seconds in %s on line %d
ephpm.session_lock_ttl=NAN: refused, now 30

Warning: ini_set(): Invalid "ephpm.session_lock_ttl" setting "INF": must be a number of seconds in %s on line %d
ephpm.session_lock_ttl=INF: refused, now 30

Warning: ini_set(): Invalid "ephpm.session_lock_ttl" setting "0": must be greater than 0 in %s on line %d
ephpm.session_lock_ttl=0: refused, now 30

Warning: ini_set(): Invalid "ephpm.session_lock_ttl" setting "-0.0": must be greater than 0 in %s on line %d
ephpm.session_lock_ttl=-0.0: refused, now 30

Warning: ini_set(): Invalid "ephpm.session_lock_ttl" setting "3153600000.5": must be at most 3153600000 seconds (100 years) in %s on line %d
ephpm.session_lock_ttl=3153600000.5: refused, now 30

Warning: ini_set(): Invalid "ephpm.session_lock_ttl" setting "18446744074": must be at most 3153600000 seconds (100 years) in %s on line %d
ephpm.session_lock_ttl=18446744074: refused, now 30

Warning: ini_set(): Invalid "ephpm.session_lock_ttl" setting "30s": must be a number of seconds in %s on line %d
ephpm.session_lock_ttl=30s: refused, now 30

Warning: ini_set(): Invalid "ephpm.session_lock_wait" setting "-1": must be greater than or equal to 0 in %s on line %d
ephpm.session_lock_wait=-1: refused, now 30

Warning: ini_set(): Invalid "ephpm.session_lock_wait" setting "1e400": must be a finite number in %s on line %d
ephpm.session_lock_wait=1e400: refused, now 30
ephpm.session_lock_ttl=3153600000: accepted, now 3153600000
ephpm.session_lock_ttl=1e-12: accepted, now 1e-12
ephpm.session_lock_wait=0: accepted, now 0
ephpm.session_lock_wait=1e300: accepted, now 1e300
