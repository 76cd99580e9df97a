--TEST--
Ephpm\Queue: a popped job is invisible to other pops for the visibility; not acknowledged by then, it is delivered again (same id and payload, attempts 2), and the first delivery can no longer ack(), release() or touch() it
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('its point is time (a visibility or a delay running out), which valgrind slows several-fold; queue_ack, queue_fifo and queue_dead_retry run pop, ack, release and touch under valgrind'); ?>
--FILE--
<?php
$q = new Ephpm\Queue('queue-lapse:' . getmypid(), 0.3);
$id = $q->push("payload\0");
$first = $q->pop();
var_dump($first->attempts, $q->pop(), $q->size()); // invisible, still counted
usleep(400000);
$second = $q->pop();
var_dump($second->id === $id, $second->payload === "payload\0", $second->attempts);
var_dump($first->ack(), $first->release(), $first->touch());
var_dump($second->ack(), $q->size());
?>
--EXPECT--
int(1)
NULL
int(1)
bool(true)
bool(true)
int(2)
bool(false)
bool(false)
bool(false)
bool(true)
int(0)
