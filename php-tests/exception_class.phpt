--TEST--
Ephpm\KvException is a RuntimeException
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$class = new ReflectionClass(Ephpm\KvException::class);
var_dump($class->getParentClass()->getName(), $class->isFinal());
?>
--EXPECT--
string(16) "RuntimeException"
bool(false)
