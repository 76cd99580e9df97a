--TEST--
Locks still held when a fatal error ends the request (destructors skipped) are released at request end, not after their TTL
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$server = 'unix://' . ephpm_test_server();
// A global, a local in the frame the fatal error interrupts, one inside
// Lock::run(), and one the script had already lost to someone else.
$fatals = [
    'memory_limit' => "str_repeat('x', 64 << 20);",
    'E_USER_ERROR' => "error_reporting(E_ALL & ~E_DEPRECATED); trigger_error('giving up', E_USER_ERROR);",
];
foreach ($fatals as $how => $fatal) {
    echo "== $how\n", ephpm_child($server, <<<PHP
        \$global = Ephpm\Lock::acquire('global', 30);
        \$lost = Ephpm\Lock::acquire('lost', 0.05);
        usleep(100000);
        ephpm_kv_set('lost', 'next holder', 30);
        function work(): void
        {
            \$local = Ephpm\Lock::acquire('local', 30);
            Ephpm\Lock::run('run', function () {
                echo "holding global, local, run\n";
                $fatal
            }, 30);
        }
        work();
        PHP, ['memory_limit' => '16M']), "\n";
    echo ephpm_child($server, <<<'PHP'
        foreach (['global', 'local', 'run'] as $name) {
            echo $name, ': ', ephpm_kv_exists($name) ? 'held' : 'free', ', ',
                ($lock = Ephpm\Lock::acquire($name, 30)) ? 'acquired at once' : 'not acquired', "\n";
            $lock?->release();
        }
        var_dump(ephpm_kv_get('lost'));
        ephpm_kv_del('lost');
        PHP), "\n";
}
?>
--EXPECTF--
== memory_limit
holding global, local, run

Fatal error: Allowed memory size of %d bytes exhausted %s
global: free, acquired at once
local: free, acquired at once
run: free, acquired at once
string(11) "next holder"
== E_USER_ERROR
holding global, local, run

Fatal error: giving up in %s
global: free, acquired at once
local: free, acquired at once
run: free, acquired at once
string(11) "next holder"
