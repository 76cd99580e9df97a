--TEST--
Ephpm\Queue, Ephpm\Job and Ephpm\Leader: readonly properties replaced or unset through ArrayObject (which bypasses readonly) change nothing the objects do: they push, pop, acknowledge, renew and resign with their own name, id, token and record, with no crash or stray read
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$name = 'queue-tampered:' . getmypid();
$q = new Ephpm\Queue($name, 30, 1);
$a = new ArrayObject($q);
$a['name'] = 5;
unset($a['visibility'], $a['maxAttempts']);
$q->push('work');
var_dump($q->size(), (new Ephpm\Queue($name))->size());
$job = $q->pop();
$j = new ArrayObject($job);
$j['id'] = 'not an id';
$j['queue'] = [];
unset($j['payload']);
var_dump($job->touch(), $job->ack(), (new Ephpm\Queue($name))->size());

$e = 'leader-tampered:' . getmypid();
$leader = Ephpm\Leader::campaign($e, 'me', 30);
$l = new ArrayObject($leader);
$l['election'] = 'elsewhere';
unset($l['term']);
var_dump($leader->isLeader(), $leader->refresh(), $leader->resign(), Ephpm\Leader::current($e));
?>
--EXPECT--
int(1)
int(1)
bool(true)
bool(true)
int(0)
bool(true)
bool(true)
bool(true)
NULL
