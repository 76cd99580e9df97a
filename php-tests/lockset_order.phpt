--TEST--
Ephpm\Lock::acquireAll takes the names in bytewise order whatever order they are given in (fences rise in that order); each member is an Ephpm\Lock with its own token and fence
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$set = Ephpm\Lock::acquireAll(['{ls}b', '{ls}a'], 30);
var_dump($set instanceof Ephpm\LockSet, array_keys($set->locks));
$a = $set->get('{ls}a');
$b = $set->get('{ls}b');
var_dump($a instanceof Ephpm\Lock, $a === $set->locks['{ls}a']);
var_dump($a->fence < $b->fence);                            // a was taken first
var_dump($a->token !== $b->token);                          // a token each
var_dump(ephpm_kv_get('{ls}a') === $a->token, ephpm_kv_get('{ls}b') === $b->token);
var_dump($set->isAcquired(), $set->release());

// (One hash tag: on a Redis Cluster fences rise per tag.)
// Bytewise: uppercase before lowercase, a prefix before what extends it,
// high bytes last; the fences rise in exactly that order.
$names = ["{ls}\xff", '{ls}b', '{ls}ab', '{ls}B', '{ls}a', '{ls}10', '{ls}9'];
$set = Ephpm\Lock::acquireAll($names, 30);
$order = array_keys($set->locks);
var_dump($order === ['{ls}10', '{ls}9', '{ls}B', '{ls}a', '{ls}ab', '{ls}b', "{ls}\xff"]);
$fences = array_map(fn(Ephpm\Lock $l) => $l->fence, array_values($set->locks));
$sorted = $fences;
sort($sorted);
var_dump($fences === $sorted && count(array_unique($fences)) === count($names));
var_dump($set->release());

// A numeric name is an int key of the array, as PHP makes it, and get() finds it.
$set = Ephpm\Lock::acquireAll(['{ls}x', '7'], 30);
var_dump(array_keys($set->locks), $set->get('7')->name);
var_dump($set->release());
?>
--EXPECT--
bool(true)
array(2) {
  [0]=>
  string(5) "{ls}a"
  [1]=>
  string(5) "{ls}b"
}
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
array(2) {
  [0]=>
  int(7)
  [1]=>
  string(5) "{ls}x"
}
string(1) "7"
bool(true)
