--TEST--
ephpm_kv_scan(): every live key with its kind (value, evictable, leases, ratelog), its TTL in seconds (-1.0: none), its size and its fence (a Lock's, a lease set's newest holder's; 0 for none, on etcd every key's create revision); a Redis glob picks keys (* ? [set], \ quotes), binary and decimal keys come back as PHP arrays hold them, an expired key is left out
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
ephpm.compress_min=0
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
// A Redis and etcd hold evictable writes (docs/engines.md): cache is a value there.
$evicts = !in_array(getenv('EPHPM_TEST_RUN'), ['redis', 'redis-cluster', 'etcd'], true);

/** A whole walk: key => info (a key reported twice is one entry). */
function walk(string $pattern = '', int $count = 100): array
{
    $all = [];
    $cursor = null;
    for ($steps = 0; $steps < 100000; $steps++) {
        $all += ephpm_kv_scan($cursor, $pattern, $count);
        if ($cursor === '') {
            break;
        }
    }
    ksort($all, SORT_STRING);
    return $all;
}

ephpm_kv_set('sc:plain', 'hello');
ephpm_kv_set('sc:ttl', str_repeat('t', 100), 30);
ephpm_kv_set('sc:cache', 'cached', 60, true);
ephpm_kv_set('sc:*star', 's');
ephpm_kv_set("sc:bin\0\xff\n", 'b');
$lock = Ephpm\Lock::acquire('sc:lock', 30);
$sem = Ephpm\Semaphore::acquire('sc:sem', 3, 30);
$rw = Ephpm\ReadWriteLock::read('sc:rw', 30);
ephpm_kv_rate_limit('sc:rate', 5, 10);
ephpm_kv_set('42', 'numeric');
ephpm_kv_set('other', 'not matched by sc:*');
ephpm_kv_set('sc:gone', 'x', 0.2);
ephpm_wait_expiry('sc:gone', 0.2, 0.4);

$all = walk('sc:*');
$fences = ['sc:lock' => $lock->fence, 'sc:sem' => $sem->fence, 'sc:rw' => $rw->fence];
foreach ($all as $key => $info) {
    if (isset($fences[$key])) {
        $fence = $info['fence'] === $fences[$key] ? "its holder's" : var_export($info['fence'], true);
    } else { // etcd: every key has a create revision, the fence a setnx there would have issued
        $fence = $info['fence'] === 0 || (getenv('EPHPM_TEST_RUN') === 'etcd' && $info['fence'] > 0) ? 'none issued' : var_export($info['fence'], true);
    }
    $ttl = $info['ttl'] === -1.0 ? 'never' : (is_float($info['ttl']) && $info['ttl'] > 0 && $info['ttl'] <= 60 ? 'live' : var_export($info['ttl'], true));
    $kind = $key === 'sc:cache' && $info['kind'] === ($evicts ? 'evictable' : 'value') ? 'cache as the engine keeps it' : $info['kind'];
    $size = in_array($info['kind'], ['leases', 'ratelog'], true) ? (is_int($info['size']) && $info['size'] > 0 ? 'some' : $info['size']) : $info['size'];
    printf("%s: %s, ttl %s, size %s, fence %s\n", addcslashes($key, "\0..\37\177..\377"), $kind, $ttl, $size, $fence);
}
var_dump(array_keys($all['sc:plain']), $all['sc:plain']['ttl']);
var_dump($all['sc:ttl']['ttl'] > 25, $all['sc:lock']['ttl'] > 25);

echo "patterns\n";
var_dump(array_keys(walk('sc:?tl')), array_keys(walk('sc:[cp]*')), array_keys(walk('sc:\*star')));
echo addcslashes(implode(',', array_keys(walk("sc:bin\0*"))), "\0..\37\177..\377"), "\n";
$every = walk();
var_dump(isset($every['other'], $every[42]), $every[42]['size'], array_keys(walk('4?')));
var_dump(walk('nothing:*'));
?>
--EXPECT--
sc:*star: value, ttl never, size 1, fence none issued
sc:bin\000\377\n: value, ttl never, size 1, fence none issued
sc:cache: cache as the engine keeps it, ttl live, size 6, fence none issued
sc:lock: value, ttl live, size 32, fence its holder's
sc:plain: value, ttl never, size 5, fence none issued
sc:rate: ratelog, ttl live, size some, fence none issued
sc:rw: leases, ttl live, size some, fence its holder's
sc:sem: leases, ttl live, size some, fence its holder's
sc:ttl: value, ttl live, size 100, fence none issued
array(4) {
  [0]=>
  string(4) "kind"
  [1]=>
  string(3) "ttl"
  [2]=>
  string(4) "size"
  [3]=>
  string(5) "fence"
}
float(-1)
bool(true)
bool(true)
patterns
array(1) {
  [0]=>
  string(6) "sc:ttl"
}
array(2) {
  [0]=>
  string(8) "sc:cache"
  [1]=>
  string(8) "sc:plain"
}
array(1) {
  [0]=>
  string(8) "sc:*star"
}
sc:bin\000\377\n
bool(true)
int(7)
array(1) {
  [0]=>
  int(42)
}
array(0) {
}
