--TEST--
Ephpm\Queue::push() with a delay: the job is counted at once but delivered only once the delay passed, and jobs pushed after it without a delay are delivered before it
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('its point is time (a visibility or a delay running out), which valgrind slows several-fold; queue_ack, queue_fifo and queue_dead_retry run pop, ack, release and touch under valgrind'); ?>
--FILE--
<?php
$q = new Ephpm\Queue('queue-delayed:' . getmypid());
$later = $q->push('later', 0.4);
var_dump($q->size(), $q->pop());
$q->push('now');
var_dump($q->pop()->payload, $q->pop());
usleep(200000);
var_dump($q->pop());             // still delayed
usleep(300000);
$job = $q->pop();
var_dump($job->payload, $job->id === $later, $job->attempts);
?>
--EXPECT--
int(1)
NULL
string(3) "now"
NULL
NULL
string(5) "later"
bool(true)
int(1)
