--TEST--
In-process fences (the map, and an anonymous segment of one process) start at the wall clock in microseconds: a PHP process started later does not reuse an earlier one's fences
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is across processes; each process makes the calls single-process tests run under valgrind'); ephpm_run_once('its children choose their engines'); ?>
--FILE--
<?php
function child(string $code, string $shmSize): string
{
    // The engine is the child's own (-n): without ephpm.shm_size it would
    // be an anonymous segment in every run, never the map.
    $cmd = [PHP_BINARY, '-n', '-d', 'extension=' . realpath(__DIR__ . '/../build/ephpm.so'),
        '-d', 'ephpm.library=' . ini_get('ephpm.library'), '-d', "ephpm.shm_size=$shmSize", '-r', $code];
    $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
    proc_close($p);
    return trim($out);
}
foreach (['0', '8M'] as $size) {
    $before = (int) (microtime(true) * 1e6);
    $first = child('echo ephpm_kv_stats()["engine"], " ", Ephpm\Lock::acquire("job")->fence;', $size);
    $second = child('echo ephpm_kv_stats()["engine"], " ", Ephpm\Lock::acquire("job")->fence;', $size);
    [$engine, $first] = explode(' ', $first) + [1 => ''];
    $second = explode(' ', $second)[1] ?? '';
    echo $engine, ' ';
    var_dump(preg_match('/^[0-9]+$/', $first) && $first >= $before && $second > $first);
}
?>
--EXPECT--
map bool(true)
shm bool(true)
