--TEST--
A named segment that another user owns, or that others may read or write, is refused (CONFIG) instead of attached: whoever can write it could forge sessions and take or free locks
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is on the Go side (its settings parsed and refused there); the C side only passes the setting, as every test under valgrind does'); ephpm_run_once('its children choose their engines'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
$try = 'try { var_dump(ephpm_kv_setnx("lock", "t", 60)); } catch (Ephpm\KvException $e) {
    echo $e->getCode() === Ephpm\KvException::CONFIG ? "CONFIG: " : "code {$e->getCode()}: ", $e->getMessage(), "\n"; }';
$name = ephpm_test_shm_name();
// As another local user could leave it for us: the right size, open to all.
file_put_contents("/dev/shm$name", str_repeat("\0", 4 << 20));
chmod("/dev/shm$name", 0666);
echo ephpm_shm_child($name, '4M', $try), "\n";
chmod("/dev/shm$name", 0600);
echo ephpm_shm_child($name, '4M', $try), "\n";   // ours, private: used
if (function_exists('posix_geteuid') ? posix_geteuid() === 0 : trim((string) shell_exec('id -u')) === '0') {
    chown("/dev/shm$name", 'nobody');
    echo ephpm_shm_child($name, '4M', $try), "\n";
} else {
    echo "CONFIG: (not root: cannot give the segment away) belongs to uid\n";
}
?>
--EXPECTF--
CONFIG: ephpm-kv: the shared memory segment (ephpm.shm_size, ephpm.shm_name) cannot be used: the shared memory segment /ephpm-phpt-%s has mode 0666: other users may read or write it; remove it (/dev/shm/ephpm-phpt-%s) and let ephpm-kv create it (mode 0600), or set another ephpm.shm_name
bool(true)
CONFIG: %sbelongs to uid %s
