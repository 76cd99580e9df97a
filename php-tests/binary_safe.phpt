--TEST--
Keys and values are binary-safe, at every size around the inline get buffer
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$key = "a\0b\xff";
$value = "\0\x01\x02 binary \0 value \xff";
ephpm_kv_set($key, $value);
var_dump(ephpm_kv_get($key) === $value);
var_dump(ephpm_kv_get("a\0b") === null);  // a different key, not a C-string prefix
var_dump(ephpm_kv_del_if_eq($key, "\0\x01\x02 binary \0 value"), ephpm_kv_del_if_eq($key, $value));

$ok = true;
foreach ([0, 1, 511, 512, 513, 4096, 70000] as $len) {
    $v = $len ? random_bytes($len) : "";
    ephpm_kv_set("size:$len", $v);
    $ok = $ok && ephpm_kv_get("size:$len") === $v;
}
var_dump($ok);
?>
--EXPECT--
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
