--TEST--
Ephpm\Queue::size() counts the jobs queued, delayed and delivered but not acknowledged; an acknowledged job leaves it, a released one stays, and another queue's jobs are not counted
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$name = 'queue-size:' . getmypid();
$q = new Ephpm\Queue($name);
$other = new Ephpm\Queue("$name:other");
var_dump($q->size());            // no queue yet
$q->push('a');
$q->push('b');
$q->push('later', 60);
$other->push('elsewhere');
var_dump($q->size());            // 2 queued, 1 delayed
$a = $q->pop();
var_dump($q->size());            // delivered, not acknowledged
$a->ack();
var_dump($q->size());
$b = $q->pop();
$b->release();
var_dump($q->size(), $other->size(), (new Ephpm\Queue($name))->size());
?>
--EXPECT--
int(0)
int(3)
int(3)
int(2)
int(2)
int(1)
int(2)
