--TEST--
Server mode: separate PHP processes share one store (locks, fences, sessions' keys)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is across processes; each process makes the calls single-process tests run under valgrind'); ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
$dir = sys_get_temp_dir() . '/ephpm-phpt-' . getmypid();
@mkdir($dir);
$sock = "$dir/kv.sock";
$server = proc_open([__DIR__ . '/../build/ephpm-kv', '--unix', $sock], [2 => ['file', '/dev/null', 'w']], $pipes);
for ($i = 0; $i < 100 && !file_exists($sock); $i++) {
    usleep(20000);
}
function child(string $code): string
{
    global $sock;
    $cmd = [PHP_BINARY, '-n', '-d', 'extension=' . EPHPM_SO, '-d', "ephpm.server=unix://$sock",
        '-d', 'ephpm.library=' . ini_get('ephpm.library'), '-r', $code];
    $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
    proc_close($p);
    return trim($out);
}
define('EPHPM_SO', realpath(__DIR__ . '/../build/ephpm.so'));
echo child('var_dump(ephpm_kv_setnx("lock", "process-1", 30));'), "\n";
echo child('var_dump(ephpm_kv_setnx("lock", "process-2", 30), ephpm_kv_get("lock"));'), "\n";
echo child('var_dump(ephpm_kv_del_if_eq("lock", "process-2"), ephpm_kv_del_if_eq("lock", "process-1"));'), "\n";
$first = child('echo Ephpm\Lock::acquire("job")->fence;');
$second = child('echo Ephpm\Lock::acquire("job")->fence;');
var_dump(preg_match('/^[0-9]+$/', $first) && $second > $first); // one counter for both processes
proc_terminate($server);
proc_close($server);
@unlink($sock);
@rmdir($dir);
?>
--EXPECT--
bool(true)
bool(false)
string(9) "process-1"
bool(false)
bool(true)
bool(true)
