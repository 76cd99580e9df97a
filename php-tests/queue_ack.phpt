--TEST--
Ephpm\Job::ack() deletes the job (size drops, it never comes back, its payload key is gone); a second ack(), and release() or touch() after it, return false
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$name = 'queue-ack:' . getmypid();
$q = new Ephpm\Queue($name, 0.2);
$id = $q->push('work');
$job = $q->pop();
var_dump($job->id === $id, ephpm_kv_exists("$name:job:$id"));
var_dump($job->ack(), $q->size(), ephpm_kv_exists("$name:job:$id"));
var_dump($job->ack(), $job->release(), $job->touch());
usleep(300000); // past the visibility: an acknowledged job stays gone
var_dump($q->pop(), $q->size(), $q->dead());
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
int(0)
bool(false)
bool(false)
bool(false)
bool(false)
NULL
int(0)
array(0) {
}
