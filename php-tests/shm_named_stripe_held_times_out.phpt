--TEST--
A stripe held by a live process that never lets go (stopped, or a forged owner word) costs a call ephpm.shm_lock_timeout, then Ephpm\KvException UNAVAILABLE naming the pid and its state; the stripe serves again once it is let go
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('its children choose their engines'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
$name = ephpm_test_shm_name();
$code = <<<'PHP'
$sleeper = proc_open(['sleep', '30'], [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
$pid = proc_get_status($sleeper)['pid'];
$stat = file_get_contents("/proc/$pid/stat");
$fields = preg_split('/\s+/', trim(substr($stat, strrpos($stat, ')') + 1)));
$owner = pack('P', (((int) $fields[19] & 0xffffffff) << 32) | $pid); // as a holder writes it
ephpm_kv_set('k', 'v');
// Every stripe's lock word (a 1 MiB segment has 8 stripes of 192 bytes
// after the 4 KiB header): whichever the key hashes to is held.
$seg = fopen('/dev/shm' . NAME, 'r+b');
$forge = function (string $word) use ($seg) {
    for ($i = 0; $i < 8; $i++) {
        fseek($seg, 4096 + 192 * $i);
        fwrite($seg, $word);
    }
    fflush($seg);
};
$forge($owner);
$t0 = hrtime(true);
try {
    ephpm_kv_get('k');
    echo "no error\n";
} catch (Ephpm\KvException $e) {
    $waited = (hrtime(true) - $t0) / 1e9;
    echo $e->getCode() === Ephpm\KvException::UNAVAILABLE ? "UNAVAILABLE" : "code {$e->getCode()}",
        str_contains($e->getMessage(), "by pid $pid (sleeping)") ? ", names the holder" : ": " . $e->getMessage(),
        $waited >= 0.3 ? ", after the timeout" : ", after only $waited s", "\n";
}
$forge(str_repeat("\0", 8));
var_dump(ephpm_kv_get('k'));
proc_terminate($sleeper);
PHP;
echo ephpm_child('', str_replace('NAME', var_export($name, true), $code),
    ['ephpm.shm_name' => $name, 'ephpm.shm_size' => '1M', 'ephpm.shm_lock_timeout' => '0.3']), "\n";
?>
--EXPECT--
UNAVAILABLE, names the holder, after the timeout
string(1) "v"
