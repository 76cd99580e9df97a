--TEST--
LockSet: its readonly locks property replaced through ArrayObject, ArrayIterator or array_walk() (which bypass readonly) changes nothing it does: get(), refresh(), isAcquired() and release() work on its own members, and no crash
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
ephpm_kv_flush();
$tamper = [
    'ArrayObject' => function (object $o): void {
        $a = new ArrayObject($o);
        $a['locks'] = 5;
    },
    'ArrayIterator' => function (object $o): void {
        $a = new ArrayIterator($o);
        $a['locks'] = ['a' => 'not a lock'];
    },
    'array_walk' => fn(object $o) => array_walk($o, function (&$v) {
        $v = ['a' => 1];
    }),
];
foreach ($tamper as $how => $t) {
    $set = Ephpm\Lock::acquireAll(['a', 'b'], 30);
    try {
        $t($set);
    } catch (Error $e) {
        // refused: nothing was changed
    }
    $r = [$set->get('a')->name, $set->isAcquired(), $set->refresh(), $set->release(), ephpm_kv_exists('a')];
    echo "$how: ", json_encode($r), "\n";
    unset($set);
}
// Dropped after tampering: the destructor releases its own members.
$set = Ephpm\Lock::acquireAll(['a', 'b'], 30);
$tamper['ArrayObject']($set);
unset($set);
var_dump(ephpm_kv_exists('a'), ephpm_kv_exists('b'));
?>
--EXPECT--
ArrayObject: ["a",true,true,true,false]
ArrayIterator: ["a",true,true,true,false]
array_walk: ["a",true,true,true,false]
bool(false)
bool(false)
