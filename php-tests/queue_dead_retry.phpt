--TEST--
Ephpm\Queue: a job delivered maxAttempts times whose visibility ran out is dead (not delivered, not in size(), listed by dead() oldest first with its attempts, at most $limit); retry($id) and retry() move dead jobs back with their attempts reset and say how many moved
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$q = new Ephpm\Queue('queue-dead:' . getmypid(), 0.2, 2);
$a = $q->push('job a');
$b = $q->push('job b');
$c = $q->push('job c');
foreach ([1, 2] as $attempt) {   // a and b delivered twice, never acknowledged
    $ja = $q->pop();
    $jb = $q->pop();
    echo "attempt $attempt: {$ja->payload} {$ja->attempts}, {$jb->payload} {$jb->attempts}\n";
    usleep(300000);
}
var_dump($q->size());            // c only
$jc = $q->pop();
var_dump($jc->payload, $q->pop(), $jc->ack(), $q->size());
var_dump($q->dead());
var_dump(array_column($q->dead(1), 'id') === [$a]);
var_dump($q->retry($b), $q->retry($b), $q->retry('999999'), $q->size());
$again = $q->pop();
var_dump($again->id === $b, $again->attempts, $again->ack());
var_dump($q->retry(), $q->dead(), $q->size());
$again = $q->pop();
var_dump($again->id === $a, $again->attempts, $again->ack(), $q->retry());
?>
--EXPECTF--
attempt 1: job a 1, job b 1
attempt 2: job a 2, job b 2
int(1)
string(5) "job c"
NULL
bool(true)
int(0)
array(2) {
  [0]=>
  array(3) {
    ["id"]=>
    string(%d) "%d"
    ["payload"]=>
    string(5) "job a"
    ["attempts"]=>
    int(2)
  }
  [1]=>
  array(3) {
    ["id"]=>
    string(%d) "%d"
    ["payload"]=>
    string(5) "job b"
    ["attempts"]=>
    int(2)
  }
}
bool(true)
int(1)
int(0)
int(0)
int(1)
bool(true)
int(1)
bool(true)
int(1)
array(0) {
}
int(1)
bool(true)
int(1)
bool(true)
int(0)
