--TEST--
Ephpm\Leader::campaign(): one leader at a time (another campaign gets null, also after waiting); current() shows its value, term and time left; resign() lets the next one in with a larger term; a term is above every fence issued before it, a Lock's too, and the next Lock's fence above it
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
// One hash tag: a Redis Cluster's fences rise per tag (docs/backends.md).
$e = '{leader-campaign:' . getmypid() . '}';
$slack = ephpm_test_ttl_slack();
var_dump(Ephpm\Leader::current($e));                       // nobody leads
$lock = Ephpm\Lock::acquire("$e:lock", 30);
$a = Ephpm\Leader::campaign($e, 'node-a', 30);
echo get_class($a), ': ', $a->election === $e ? 'its election' : 'another election', ', ', $a->value, "\n";
var_dump($a->term > $lock->fence);
var_dump(Ephpm\Leader::campaign($e, 'node-b', 30));        // led: null at once
$t = microtime(true);
var_dump(Ephpm\Leader::campaign($e, 'node-b', 30, 0.3));   // and after waiting
var_dump(microtime(true) - $t >= 0.3);
$cur = Ephpm\Leader::current($e);
var_dump(array_keys($cur), $cur['value'], $cur['term'] === $a->term);
var_dump($cur['remaining'] > 29 - $slack && $cur['remaining'] <= 30);
var_dump($a->isLeader(), $a->remaining() > 29 - $slack && $a->remaining() <= 30);

var_dump($a->resign(), $a->resign(), $a->isLeader(), $a->remaining(), Ephpm\Leader::current($e));
$b = Ephpm\Leader::campaign($e, 'node-b', 30);
var_dump($b->value, $b->term > $a->term, Ephpm\Leader::current($e)['value']);
var_dump($a->refresh(), $b->isLeader());                   // the old leader renews nothing of b's

// One counter: a Lock taken now is fenced above b's term, and the next term above that.
$lock2 = Ephpm\Lock::acquire("$e:lock2", 30);
var_dump($lock2->fence > $b->term, $b->resign());
$c = Ephpm\Leader::campaign($e, "binary\0value\xff", 30);
var_dump($c->term > $lock2->fence, Ephpm\Leader::current($e)['value'] === "binary\0value\xff");
var_dump($c->resign(), $lock->release(), $lock2->release(), ephpm_kv_exists($e));
?>
--EXPECT--
NULL
Ephpm\Leader: its election, node-a
bool(true)
NULL
NULL
bool(true)
array(3) {
  [0]=>
  string(5) "value"
  [1]=>
  string(4) "term"
  [2]=>
  string(9) "remaining"
}
string(6) "node-a"
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(false)
float(0)
NULL
string(6) "node-b"
bool(true)
string(6) "node-b"
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
