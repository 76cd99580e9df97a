--TEST--
A named segment created by a process with a restrictive umask (0277: read-only for its owner) is still opened by the owner's other processes: it is made 0600 whatever the umask
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('its children choose their engines');
$root = trim((string) shell_exec('id -u')) === '0';
if ($root && !shell_exec('command -v setpriv')) die('skip as root, needs setpriv to run as nobody (root opens any file)'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
$name = ephpm_test_shm_name();
$as = trim((string) shell_exec('id -u')) === '0' ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'] : [];
function run(array $as, string $name, string $code): string
{
    $cmd = [...$as, PHP_BINARY, '-n', '-d', 'extension=' . realpath(__DIR__ . '/../build/ephpm.so'),
        '-d', 'ephpm.library=' . ini_get('ephpm.library'), '-d', 'ephpm.server=',
        '-d', "ephpm.shm_name=$name", '-d', 'ephpm.shm_size=4M', '-r', $code];
    $env = getenv();
    unset($env['USE_ZEND_ALLOC']);
    $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes, null, $env);
    $out = stream_get_contents($pipes[1]);
    proc_close($p);
    return trim($out);
}
echo run($as, $name, 'umask(0277); var_dump(ephpm_kv_set("k", "v"));'), "\n";
printf("%o\n", fileperms("/dev/shm$name") & 0777);
echo run($as, $name, 'try { var_dump(ephpm_kv_get("k")); } catch (Ephpm\KvException $e) { echo $e->getMessage(), "\n"; }'), "\n";
?>
--EXPECT--
bool(true)
600
string(1) "v"
