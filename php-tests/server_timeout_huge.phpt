--TEST--
Server mode: an ephpm.server_timeout too long for the clock waits (saturates), it never times out every call at once
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/ttl_server.inc';
$server = ttl_server_start();
// 1e300 and 9223372037 s saturate at INT64_MAX ns; 9223372036 s does not.
foreach (['1e300', '9223372037', '9223372036'] as $timeout) {
    echo $timeout, ': ', ttl_server_child($server, ['ephpm.server_timeout' => $timeout],
        'try { var_export([ephpm_kv_set("k", "v"), ephpm_kv_get("k")]); } '
        . 'catch (Throwable $e) { echo get_class($e), ": ", $e->getMessage(); }'), "\n";
}
ttl_server_stop($server);
?>
--EXPECT--
1e300: array (
  0 => true,
  1 => 'v',
)
9223372037: array (
  0 => true,
  1 => 'v',
)
9223372036: array (
  0 => true,
  1 => 'v',
)
