--TEST--
Ephpm\Queue: push() returns each job's id as a decimal string, ids rising; pop() delivers the oldest visible job first (a Job carrying its queue, id, payload and attempts 1), null once none is left
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$q = new Ephpm\Queue('queue-fifo:' . getmypid(), 30, 5);
var_dump($q->name === 'queue-fifo:' . getmypid(), $q->visibility, $q->maxAttempts);
$ids = [$q->push('first'), $q->push('second'), $q->push('third')];
var_dump($ids, $q->size());
$first = $q->pop();
var_dump($first);
$q->push('fourth'); // after the others
$order = [$first->payload];
while ($job = $q->pop()) {
    $order[] = $job->payload;
    $ids[] = $job->id;
}
var_dump($order, $ids[3] === '2' && $ids[4] === '3', $q->size(), $q->pop());
// The defaults: 30 s, 5 attempts.
$d = new Ephpm\Queue('queue-fifo-defaults:' . getmypid());
var_dump($d->visibility, $d->maxAttempts);
?>
--EXPECTF--
bool(true)
float(30)
int(5)
array(3) {
  [0]=>
  string(1) "1"
  [1]=>
  string(1) "2"
  [2]=>
  string(1) "3"
}
int(3)
object(Ephpm\Job)#%d (4) {
  ["queue"]=>
  string(%d) "queue-fifo:%d"
  ["id"]=>
  string(1) "1"
  ["payload"]=>
  string(5) "first"
  ["attempts"]=>
  int(1)
}
array(4) {
  [0]=>
  string(5) "first"
  [1]=>
  string(6) "second"
  [2]=>
  string(5) "third"
  [3]=>
  string(6) "fourth"
}
bool(true)
int(4)
NULL
float(30)
int(5)
