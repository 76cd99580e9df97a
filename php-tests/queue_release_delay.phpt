--TEST--
Ephpm\Job::release(): the job is visible again at once, or after the delay given (not before), and delivered with attempts counted on; the released delivery can no longer ack() it
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('its point is time (a visibility or a delay running out), which valgrind slows several-fold; queue_ack, queue_fifo and queue_dead_retry run pop, ack, release and touch under valgrind'); ?>
--FILE--
<?php
$q = new Ephpm\Queue('queue-release:' . getmypid(), 30);
$q->push('job');
$a = $q->pop();
var_dump($a->release());
$b = $q->pop();                  // at once
var_dump($b->id === $a->id, $b->attempts, $a->ack(), $a->release());
var_dump($b->release(0.3), $q->pop(), $q->size());
usleep(150000);
var_dump($q->pop());             // still delayed
usleep(250000);
$c = $q->pop();
var_dump($c->id === $a->id, $c->attempts, $c->ack(), $b->ack());
?>
--EXPECT--
bool(true)
bool(true)
int(2)
bool(false)
bool(false)
bool(true)
NULL
int(1)
NULL
bool(true)
int(3)
bool(true)
bool(false)
