--TEST--
Server mode: a full server store is KvException::FULL and its hint names the server's --memory-limit, not ephpm.memory_limit
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$sock = ephpm_test_server('--memory-limit', '65536', '--compress-min', '0');
echo ephpm_child("unix://$sock", <<<'PHP'
    try {
        for ($i = 0; $i < 100; $i++) {
            ephpm_kv_set("k$i", str_repeat('x', 10000));
        }
    } catch (Ephpm\KvException $e) {
        var_dump($e->getCode() === Ephpm\KvException::FULL);
        echo $e->getMessage(), "\n";
        var_dump(str_contains($e->getMessage(), 'ephpm.memory_limit'));
    }
    PHP, ['ephpm.memory_limit' => '64M']), "\n";
?>
--EXPECTF--
bool(true)
ephpm-kv: store full at the ephpm-kv server unix://%s: writing %d bytes would pass memory_limit of 65536 bytes (%d used); raise the ephpm-kv server's --memory-limit, give entries a TTL, or delete what is no longer needed
bool(false)
