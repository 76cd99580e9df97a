--TEST--
Ephpm\Queue and Ephpm\Job: an empty name or one too long for its jobs' keys, a visibility not above 0 and at most 100 years, maxAttempts below 1, a negative or non-finite delay or wait, a limit below 1, a retry id that is not a job id (a positive decimal integer) are ValueErrors before the store is asked; no second construction, no new Job, clone, serialize or property writes
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
$name = 'queue-bad:' . getmypid();
$q = new Ephpm\Queue($name);
$calls = [
    fn() => new Ephpm\Queue(''),
    fn() => new Ephpm\Queue(str_repeat('k', 65513)),
    fn() => new Ephpm\Queue($name, 0),
    fn() => new Ephpm\Queue($name, -1),
    fn() => new Ephpm\Queue($name, NAN),
    fn() => new Ephpm\Queue($name, INF),
    fn() => new Ephpm\Queue($name, 3153600001),
    fn() => new Ephpm\Queue($name, 30, 0),
    fn() => new Ephpm\Queue($name, 30, -5),
    fn() => new Ephpm\Queue($name, 30, '5'),
    fn() => $q->push('x', -1),
    fn() => $q->push('x', NAN),
    fn() => $q->push('x', INF),
    fn() => $q->push('x', 3153600001),
    fn() => $q->push(5),
    fn() => $q->pop(-0.5),
    fn() => $q->pop(NAN),
    fn() => $q->pop(INF),
    fn() => $q->dead(0),
    fn() => $q->dead(-1),
    fn() => $q->retry(''),
    fn() => $q->retry('0'),
    fn() => $q->retry('01'),
    fn() => $q->retry('-1'),
    fn() => $q->retry('+1'),
    fn() => $q->retry(' 1'),
    fn() => $q->retry('1 '),
    fn() => $q->retry('1.0'),
    fn() => $q->retry('1e3'),
    fn() => $q->retry('abc'),
    fn() => $q->retry("1\0"),
    fn() => $q->retry('9223372036854775808'),
    fn() => $q->retry(1),
];
foreach ($calls as $call) {
    try {
        $call();
        echo "no error\n";
    } catch (ValueError | TypeError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
var_dump($q->size(), ephpm_kv_exists($name)); // nothing was queued
var_dump(new Ephpm\Queue(str_repeat('k', 65512)) instanceof Ephpm\Queue); // the longest name
var_dump($q->retry('9223372036854775807'));   // a well-formed id no job has
$q->push('x');
$job = $q->pop();
foreach ([fn() => $job->release(-1), fn() => $job->release(NAN), fn() => $job->release(INF)] as $call) {
    try {
        $call();
        echo "no error\n";
    } catch (ValueError $e) {
        echo $e->getMessage(), "\n";
    }
}
var_dump($job->ack());
try {
    $q->__construct('other');
} catch (Error $e) {
    echo $e->getMessage(), "\n";
}
var_dump($q->name);
try {
    new Ephpm\Job();
} catch (Error $e) {
    echo $e->getMessage(), "\n";
}
foreach ([$q, $job] as $o) {
    try {
        clone $o;
    } catch (Error $e) {
        echo $e->getMessage(), "\n";
    }
    try {
        serialize($o);
    } catch (Exception $e) {
        echo $e->getMessage(), "\n";
    }
    try {
        $o->extra = 1;
    } catch (Error $e) {
        echo $e->getMessage(), "\n";
    }
}
try {
    $q->maxAttempts = 1;
} catch (Error $e) {
    echo $e->getMessage(), "\n";
}
try {
    $job->payload = 'changed';
} catch (Error $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECTF--
ValueError: Ephpm\Queue::__construct(): Argument #1 ($name) must not be empty
ValueError: Ephpm\Queue::__construct(): Argument #1 ($name) must not be longer than 65512 bytes (its jobs' keys add ":job:" and an id)
ValueError: Ephpm\Queue::__construct(): Argument #2 ($visibility) must be greater than 0
ValueError: Ephpm\Queue::__construct(): Argument #2 ($visibility) must be greater than 0
ValueError: Ephpm\Queue::__construct(): Argument #2 ($visibility) must be a finite number
ValueError: Ephpm\Queue::__construct(): Argument #2 ($visibility) must be at most 3153600000 seconds (100 years)
ValueError: Ephpm\Queue::__construct(): Argument #2 ($visibility) must be at most 3153600000 seconds (100 years)
ValueError: Ephpm\Queue::__construct(): Argument #3 ($maxAttempts) must be greater than 0
ValueError: Ephpm\Queue::__construct(): Argument #3 ($maxAttempts) must be greater than 0
TypeError: Ephpm\Queue::__construct(): Argument #3 ($maxAttempts) must be of type int, string given
ValueError: Ephpm\Queue::push(): Argument #2 ($delay) must be greater than or equal to 0
ValueError: Ephpm\Queue::push(): Argument #2 ($delay) must be a finite number
ValueError: Ephpm\Queue::push(): Argument #2 ($delay) must be at most 3153600000 seconds (100 years)
ValueError: Ephpm\Queue::push(): Argument #2 ($delay) must be at most 3153600000 seconds (100 years)
TypeError: Ephpm\Queue::push(): Argument #1 ($payload) must be of type string, int given
ValueError: Ephpm\Queue::pop(): Argument #1 ($wait) must be greater than or equal to 0
ValueError: Ephpm\Queue::pop(): Argument #1 ($wait) must be a finite number
ValueError: Ephpm\Queue::pop(): Argument #1 ($wait) must be a finite number
ValueError: Ephpm\Queue::dead(): Argument #1 ($limit) must be greater than 0
ValueError: Ephpm\Queue::dead(): Argument #1 ($limit) must be greater than 0
ValueError: Ephpm\Queue::retry(): Argument #1 ($id) must be a job id (a positive decimal integer, as push() returns) or null
ValueError: Ephpm\Queue::retry(): Argument #1 ($id) must be a job id (a positive decimal integer, as push() returns) or null
ValueError: Ephpm\Queue::retry(): Argument #1 ($id) must be a job id (a positive decimal integer, as push() returns) or null
ValueError: Ephpm\Queue::retry(): Argument #1 ($id) must be a job id (a positive decimal integer, as push() returns) or null
ValueError: Ephpm\Queue::retry(): Argument #1 ($id) must be a job id (a positive decimal integer, as push() returns) or null
ValueError: Ephpm\Queue::retry(): Argument #1 ($id) must be a job id (a positive decimal integer, as push() returns) or null
ValueError: Ephpm\Queue::retry(): Argument #1 ($id) must be a job id (a positive decimal integer, as push() returns) or null
ValueError: Ephpm\Queue::retry(): Argument #1 ($id) must be a job id (a positive decimal integer, as push() returns) or null
ValueError: Ephpm\Queue::retry(): Argument #1 ($id) must be a job id (a positive decimal integer, as push() returns) or null
ValueError: Ephpm\Queue::retry(): Argument #1 ($id) must be a job id (a positive decimal integer, as push() returns) or null
ValueError: Ephpm\Queue::retry(): Argument #1 ($id) must be a job id (a positive decimal integer, as push() returns) or null
ValueError: Ephpm\Queue::retry(): Argument #1 ($id) must be a job id (a positive decimal integer, as push() returns) or null
TypeError: Ephpm\Queue::retry(): Argument #1 ($id) must be of type ?string, int given
int(0)
bool(false)
bool(true)
int(0)
Ephpm\Job::release(): Argument #1 ($delay) must be greater than or equal to 0
Ephpm\Job::release(): Argument #1 ($delay) must be a finite number
Ephpm\Job::release(): Argument #1 ($delay) must be at most 3153600000 seconds (100 years)
bool(true)
Cannot modify readonly property Ephpm\Queue::$name
string(%d) "queue-bad:%d"
Call to private Ephpm\Job::__construct() from global scope
Trying to clone an uncloneable object of class Ephpm\Queue
Serialization of 'Ephpm\Queue' is not allowed
Cannot create dynamic property Ephpm\Queue::$extra
Trying to clone an uncloneable object of class Ephpm\Job
Serialization of 'Ephpm\Job' is not allowed
Cannot create dynamic property Ephpm\Job::$extra
Cannot modify readonly property Ephpm\Queue::$maxAttempts
Cannot modify readonly property Ephpm\Job::$payload
