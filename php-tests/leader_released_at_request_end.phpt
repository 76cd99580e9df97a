--TEST--
A Leader still leading when a fatal error ends the request (destructors skipped) is given back at the request's end, not after its TTL
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$server = 'unix://' . ephpm_test_server();
echo ephpm_child($server, <<<'PHP'
    $global = Ephpm\Leader::campaign('global', 'a', 30);
    $renewed = Ephpm\Leader::campaign('renewed', 'b', 30, 0, true);
    function work(): void
    {
        $local = Ephpm\Leader::campaign('local', 'c', 30);
        echo "leading global, renewed, local\n";
        error_reporting(E_ALL & ~E_DEPRECATED);
        trigger_error('giving up', E_USER_ERROR);
    }
    work();
    PHP), "\n";
echo ephpm_child($server, <<<'PHP'
    foreach (['global', 'renewed', 'local'] as $e) {
        echo $e, ': ', Ephpm\Leader::current($e) === null ? 'nobody leads' : 'led', ', ',
            ($l = Ephpm\Leader::campaign($e, 'next', 30)) ? 'elected at once' : 'not elected', "\n";
        $l?->resign();
    }
    PHP), "\n";
?>
--EXPECTF--
leading global, renewed, local

Fatal error: giving up in %s
global: nobody leads, elected at once
renewed: nobody leads, elected at once
local: nobody leads, elected at once
