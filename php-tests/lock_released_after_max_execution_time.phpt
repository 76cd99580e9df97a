--TEST--
Locks still held when max_execution_time ends the request (destructors skipped) are released at request end, not after their TTL
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$server = 'unix://' . ephpm_test_server();
echo ephpm_child($server, <<<'PHP'
    $global = Ephpm\Lock::acquire('global', 30);
    function work(): void
    {
        $local = Ephpm\Lock::acquire('local', 30);
        echo "holding global, local\n";
        while (true) {
            ephpm_kv_exists('local');
        }
    }
    work();
    PHP, ['max_execution_time' => getenv('EPHPM_TEST_VALGRIND') ? '10' : '1']), "\n"; // CPU time: valgrind's start-up alone can take 1 s
echo ephpm_child($server, <<<'PHP'
    foreach (['global', 'local'] as $name) {
        echo $name, ': ', ephpm_kv_exists($name) ? 'held' : 'free', ', ',
            Ephpm\Lock::acquire($name, 30) ? 'acquired at once' : 'not acquired', "\n";
    }
    PHP), "\n";
?>
--EXPECTF--
holding global, local

Fatal error: Maximum execution time of %d second%S exceeded in %s
global: free, acquired at once
local: free, acquired at once
