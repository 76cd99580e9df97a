--TEST--
pcntl_fork after the store started: the child gets Ephpm\KvException, never a hang; the parent keeps working
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
ephpm_kv_set('k', 'parent value');
$pid = pcntl_fork();
if ($pid === 0) {
    try {
        ephpm_kv_get('k');
        echo "child: no exception\n";
    } catch (Ephpm\KvException $e) {
        echo 'child: ', $e->getMessage(), "\n";
    }
    exit(0);
}
pcntl_waitpid($pid, $status);
var_dump(pcntl_wexitstatus($status));
var_dump(ephpm_kv_get('k'));
var_dump(ephpm_kv_setnx('fork_after_use:lock', 'parent')); // a key no other test leaves behind in a shared store
?>
--EXPECTF--
child: ephpm-kv cannot be used in this process: it was forked (e.g. by pcntl_fork()) after the store started in its parent (pid %d), and a Go runtime does not survive fork(). Fork before the first ephpm_kv_* call, or use the store only in the parent
int(0)
string(12) "parent value"
bool(true)
