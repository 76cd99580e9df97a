--TEST--
Ephpm\Queue::pop($wait) waits for a job: it returns the delayed job once it becomes visible, well before the wait ends, and null after the whole wait when none comes
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('its point is time (a visibility or a delay running out), which valgrind slows several-fold; queue_ack, queue_fifo and queue_dead_retry run pop, ack, release and touch under valgrind'); ?>
--FILE--
<?php
$q = new Ephpm\Queue('queue-pop-waits:' . getmypid());
$t = microtime(true);
var_dump($q->pop(0.3));
$took = microtime(true) - $t;
var_dump($took >= 0.3 ?: $took);
$q->push('soon', 0.3);
$t = microtime(true);
$job = $q->pop(5);
$took = microtime(true) - $t;
var_dump($job?->payload, $took >= 0.29 && $took < 3 ?: $took);
// A wait too long for the clock waits like any other (here: not at all, a job is there).
$q->push('there');
var_dump($q->pop(1e300)->payload);
?>
--EXPECT--
NULL
bool(true)
string(4) "soon"
bool(true)
string(5) "there"
