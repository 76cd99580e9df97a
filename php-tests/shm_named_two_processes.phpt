--TEST--
A named segment (ephpm.shm_name) is shared by unrelated PHP processes: a lock taken by one holds for the other, and their increments add up
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is across processes; each process makes the calls single-process tests run under valgrind'); ephpm_run_once('its children choose their engines'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
$name = ephpm_test_shm_name();
echo ephpm_shm_child($name, '8M', 'var_dump(ephpm_kv_setnx("cron", "first", 60), ephpm_kv_stats()["engine"]);'), "\n";
echo ephpm_shm_child($name, '8M', 'var_dump(ephpm_kv_setnx("cron", "second", 60), ephpm_kv_get("cron"),
    ephpm_kv_del_if_eq("cron", "second"), ephpm_kv_del_if_eq("cron", "first"));'), "\n";
// Two processes at once, each taking a lock per increment of a plain value.
// They start together (one alone would count exactly with no lock at all),
// and the same without the lock, the control, comes out short.
$ready = 'function ready($p) { ephpm_kv_incr("ready:$p");
    for ($t = 0; $t < 100000 && (int) ephpm_kv_get("ready:$p") < 2; $t++) { usleep(100); } }';
$code = $ready . ' ready("loose"); for ($i = 0; $i < 300; $i++) { $n = (int) ephpm_kv_get("loose");
    usleep(20); ephpm_kv_set("loose", (string) ($n + 1)); }
    ready("locked"); for ($i = 0; $i < 300; $i++) { $l = Ephpm\Lock::acquire("n-lock", 10, 30);
    $n = (int) ephpm_kv_get("n"); usleep(20); ephpm_kv_set("n", (string) ($n + 1)); $l->release(); } echo "done";';
$cmd = fn () => [PHP_BINARY, '-n', '-d', 'extension=' . realpath(__DIR__ . '/../build/ephpm.so'),
    '-d', 'ephpm.library=' . ini_get('ephpm.library'), '-d', 'ephpm.server=',
    '-d', "ephpm.shm_name=$name", '-d', 'ephpm.shm_size=8M', '-r', $code];
$env = getenv();
unset($env['USE_ZEND_ALLOC']);
$procs = [];
for ($p = 0; $p < 2; $p++) {
    $procs[] = proc_open($cmd(), [1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes[$p], null, $env);
}
foreach ($procs as $p => $proc) {
    echo stream_get_contents($pipes[$p][1]), "\n";
    proc_close($proc);
}
echo ephpm_shm_child($name, '8M', 'var_dump((int) ephpm_kv_get("loose") < 600, ephpm_kv_get("n"));'), "\n";
?>
--EXPECT--
bool(true)
string(3) "shm"
bool(false)
string(5) "first"
bool(false)
bool(true)
done
done
bool(true)
string(3) "600"
