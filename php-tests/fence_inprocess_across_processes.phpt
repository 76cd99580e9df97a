--TEST--
In-process fences start at the wall clock in microseconds: a PHP process started later does not reuse an earlier one's fences
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
function child(string $code): string
{
    $cmd = [PHP_BINARY, '-n', '-d', 'extension=' . realpath(__DIR__ . '/../build/ephpm.so'),
        '-d', 'ephpm.library=' . ini_get('ephpm.library'), '-r', $code];
    $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
    proc_close($p);
    return trim($out);
}
$before = (int) (microtime(true) * 1e6);
$first = child('echo Ephpm\Lock::acquire("job")->fence;');
$second = child('echo Ephpm\Lock::acquire("job")->fence;');
var_dump(preg_match('/^[0-9]+$/', $first) && $first >= $before, $second > $first);
?>
--EXPECT--
bool(true)
bool(true)
