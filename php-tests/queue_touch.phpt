--TEST--
Ephpm\Job::touch() extends the delivery's invisibility to the queue's visibility from now: touched in time, the job stays invisible past its first visibility and can still be acknowledged; not touched, it is delivered again
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('its point is time (a visibility or a delay running out), which valgrind slows several-fold; queue_ack, queue_fifo and queue_dead_retry run pop, ack, release and touch under valgrind'); ?>
--FILE--
<?php
$q = new Ephpm\Queue('queue-touch:' . getmypid(), 0.4);
$q->push('long work');
$job = $q->pop();
for ($i = 0; $i < 3; $i++) {     // 0.75 s of work in all, touched every 0.25 s
    usleep(250000);
    var_dump($job->touch());
}
var_dump($q->pop(), $job->ack());
// The control: the same work without touch() loses the job to another pop.
$q->push('long work');
$job = $q->pop();
usleep(750000);
$again = $q->pop();
var_dump($again?->attempts, $job->touch(), $job->ack(), $again->ack());
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
NULL
bool(true)
int(2)
bool(false)
bool(false)
bool(true)
