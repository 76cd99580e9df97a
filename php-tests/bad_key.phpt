--TEST--
Empty keys and keys over 64 KiB are a ValueError for every function
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
$calls = [
    'get' => fn($k) => ephpm_kv_get($k),
    'set' => fn($k) => ephpm_kv_set($k, 'v'),
    'setnx' => fn($k) => ephpm_kv_setnx($k, 'v'),
    'del' => fn($k) => ephpm_kv_del($k),
    'del_if_eq' => fn($k) => ephpm_kv_del_if_eq($k, 'v'),
    'exists' => fn($k) => ephpm_kv_exists($k),
    'expire' => fn($k) => ephpm_kv_expire($k, 1),
    'expire_if_eq' => fn($k) => ephpm_kv_expire_if_eq($k, 'v', 1),
    'ttl' => fn($k) => ephpm_kv_ttl($k),
    'incr' => fn($k) => ephpm_kv_incr($k),
];
foreach (['' => 'empty', str_repeat('k', 65537) => 'too long'] as $key => $what) {
    foreach ($calls as $name => $call) {
        try {
            $call((string)$key);
            echo "$name($what): no error\n";
        } catch (ValueError $e) {
            echo $e->getMessage(), "\n";
        }
    }
}
var_dump(ephpm_kv_set(str_repeat('k', 65536), 'largest key is fine'));
var_dump(ephpm_kv_stats()['keys']); // nothing else was stored
?>
--EXPECT--
ephpm_kv_get(): Argument #1 ($key) must not be empty
ephpm_kv_set(): Argument #1 ($key) must not be empty
ephpm_kv_setnx(): Argument #1 ($key) must not be empty
ephpm_kv_del(): Argument #1 ($key) must not be empty
ephpm_kv_del_if_eq(): Argument #1 ($key) must not be empty
ephpm_kv_exists(): Argument #1 ($key) must not be empty
ephpm_kv_expire(): Argument #1 ($key) must not be empty
ephpm_kv_expire_if_eq(): Argument #1 ($key) must not be empty
ephpm_kv_ttl(): Argument #1 ($key) must not be empty
ephpm_kv_incr(): Argument #1 ($key) must not be empty
ephpm_kv_get(): Argument #1 ($key) must not be longer than 65536 bytes
ephpm_kv_set(): Argument #1 ($key) must not be longer than 65536 bytes
ephpm_kv_setnx(): Argument #1 ($key) must not be longer than 65536 bytes
ephpm_kv_del(): Argument #1 ($key) must not be longer than 65536 bytes
ephpm_kv_del_if_eq(): Argument #1 ($key) must not be longer than 65536 bytes
ephpm_kv_exists(): Argument #1 ($key) must not be longer than 65536 bytes
ephpm_kv_expire(): Argument #1 ($key) must not be longer than 65536 bytes
ephpm_kv_expire_if_eq(): Argument #1 ($key) must not be longer than 65536 bytes
ephpm_kv_ttl(): Argument #1 ($key) must not be longer than 65536 bytes
ephpm_kv_incr(): Argument #1 ($key) must not be longer than 65536 bytes
bool(true)
int(1)
