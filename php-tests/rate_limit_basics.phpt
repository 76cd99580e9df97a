--TEST--
ephpm_kv_rate_limit: admits $limit calls per window with remaining counting down, refuses the next with retry_after until the oldest admitted call leaves the window, does not count refused calls, and keeps keys apart
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
require_once __DIR__ . '/lease.inc';
ephpm_kv_flush();
// Slow calls (etcd's round trips, valgrind) spread the admitted calls apart:
// a longer window and margin keep all three leaving together.
$slow = ephpm_test_on_etcd() || getenv('EPHPM_TEST_VALGRIND');
$window = $slow ? 2.0 : 0.4;
$start = microtime(true);
for ($i = 0; $i < 5; $i++) {
    $r = ephpm_kv_rate_limit('api:alice', 3, $window);
    echo json_encode(['allowed' => $r['allowed'], 'remaining' => $r['remaining']]), ' ',
        $r['allowed'] ? var_export($r['retry_after'] === 0.0, true)
        // the oldest admitted call came after $start: it leaves the window at
        // most $window and at least $window minus the time since then from now
        : var_export($r['retry_after'] <= $window + 0.001
            && $r['retry_after'] >= $window - (microtime(true) - $start) - 0.005, true), "\n";
}
var_dump(array_keys($r), is_float($r['retry_after']));
// Another key has its own window; an int window is seconds.
var_dump(ephpm_kv_rate_limit('api:bob', 1, 60)['allowed'], ephpm_kv_rate_limit('api:bob', 1, 60)['allowed']);
// After retry_after the oldest call has left the window: one more is admitted.
usleep((int) (($r['retry_after'] + ($slow ? 0.3 : 0.02)) * 1e6));
$again = ephpm_kv_rate_limit('api:alice', 3, $window);
var_dump($again['allowed'], $again['remaining']);
?>
--EXPECT--
{"allowed":true,"remaining":2} true
{"allowed":true,"remaining":1} true
{"allowed":true,"remaining":0} true
{"allowed":false,"remaining":0} true
{"allowed":false,"remaining":0} true
array(3) {
  [0]=>
  string(7) "allowed"
  [1]=>
  string(9) "remaining"
  [2]=>
  string(11) "retry_after"
}
bool(true)
bool(true)
bool(false)
bool(true)
int(2)
