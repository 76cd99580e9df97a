--TEST--
Ephpm\Lock::run passes the lock, returns the result, and always releases
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
$result = Ephpm\Lock::run('job', function (Ephpm\Lock $lock) {
    var_dump($lock->isAcquired(), ephpm_kv_get('job') === $lock->token);
    return ['done' => true];
});
var_dump($result, ephpm_kv_exists('job'));

try {
    Ephpm\Lock::run('job', function () {
        throw new LogicException('boom');
    });
} catch (LogicException $e) {
    echo 'caught: ', $e->getMessage(), "\n";
}
var_dump(ephpm_kv_exists('job'));

ephpm_kv_set('job', 'someone', 30);
try {
    Ephpm\Lock::run('job', fn() => 'never', 30, 0.05);
} catch (Ephpm\LockTimeoutException $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
var_dump(ephpm_kv_get('job'));
?>
--EXPECT--
bool(true)
bool(true)
array(1) {
  ["done"]=>
  bool(true)
}
bool(false)
caught: boom
bool(false)
Ephpm\LockTimeoutException: Could not acquire lock "job" within 0.050 seconds
string(7) "someone"
