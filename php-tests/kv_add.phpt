--TEST--
ephpm_kv_add: false only while a live entry of either kind exists, as setnx; with $evictable the entry it stores is cache (bytes_evictable counts it where the engine evicts), and a refused add changes nothing, a held lock included; bad arguments are refused
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
ephpm.compress_min=0
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
// A Redis and etcd hold evictable writes (docs/engines.md).
$evicts = !in_array(getenv('EPHPM_TEST_RUN'), ['redis', 'redis-cluster', 'etcd'], true);
$cache = fn() => ephpm_kv_stats()['bytes_evictable'];

var_dump(ephpm_kv_add('page', str_repeat('p', 500), 60, true));
var_dump(strlen(ephpm_kv_get('page')), ephpm_kv_ttl('page') > 59 - ephpm_test_ttl_slack());
var_dump($evicts ? $cache() >= 500 : $cache() === 0);
var_dump(ephpm_kv_add('page', 'other', 0, true), ephpm_kv_add('page', 'other'));
var_dump(strlen(ephpm_kv_get('page')));

// A held lock is never turned into cache by an add.
$lock = Ephpm\Lock::acquire('add:lock', 60);
$before = $cache();
var_dump(ephpm_kv_add('add:lock', 'mine now', 0, true), $cache() === $before, $lock->release());

// Held by default, as ephpm_kv_set: bytes_evictable does not move.
var_dump(ephpm_kv_add('counter', '0'), $cache() === $before, ephpm_kv_incr('counter'));

// An expired entry counts as absent.
var_dump(ephpm_kv_add('short', 'a', 0.2, true));
ephpm_wait_expiry('short', 0.2, 0.3);
var_dump(ephpm_kv_add('short', 'b', 0, true), ephpm_kv_get('short'));

foreach ([
    fn() => ephpm_kv_add('', 'v', 0, true),
    fn() => ephpm_kv_add('k', 'v', -1, true),
    fn() => ephpm_kv_add('k', 'v', NAN),
    fn() => ephpm_kv_add('k', [], 0, true),
    fn() => ephpm_kv_add('k', 'v', 0, true, 'extra'),
] as $bad) {
    try {
        $bad();
        echo "accepted\n";
    } catch (Throwable $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
var_dump(ephpm_kv_exists('k'));
?>
--EXPECT--
bool(true)
int(500)
bool(true)
bool(true)
bool(false)
bool(false)
int(500)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
int(1)
bool(true)
bool(true)
string(1) "b"
ValueError: ephpm_kv_add(): Argument #1 ($key) must not be empty
ValueError: ephpm_kv_add(): Argument #3 ($ttl) must be greater than or equal to 0
ValueError: ephpm_kv_add(): Argument #3 ($ttl) must be a finite number
TypeError: ephpm_kv_add(): Argument #2 ($value) must be of type string, array given
ArgumentCountError: ephpm_kv_add() expects at most 4 arguments, 5 given
bool(false)
