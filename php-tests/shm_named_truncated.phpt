--TEST--
A named segment truncated under a running process: the next call throws Ephpm\KvException CONFIG saying the segment shrank, the process lives on, later calls fail the same way, and a new process refuses the segment
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('its children choose their engines'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
$name = ephpm_test_shm_name();
$code = <<<'PHP'
for ($i = 0; $i < 200; $i++) {
    ephpm_kv_set("k$i", "v$i");
}
$f = fopen('/dev/shm' . NAME, 'r+b');
ftruncate($f, 8192); // the header and stripes stay, the index and arena go
foreach (['first' => 'k1', 'again' => 'k2'] as $when => $key) {
    try {
        for ($i = 0; $i < 200; $i++) {
            ephpm_kv_get("k$i");
        }
        echo "$when: no error\n";
    } catch (Ephpm\KvException $e) {
        echo "$when: ", $e->getCode() === Ephpm\KvException::CONFIG ? "CONFIG" : "code {$e->getCode()}",
            str_contains($e->getMessage(), 'shrank') ? ", says it shrank" : ": " . $e->getMessage(), "\n";
    }
}
echo "still running\n";
PHP;
$ini = ['ephpm.shm_name' => $name, 'ephpm.shm_size' => '1M'];
echo ephpm_child('', str_replace('NAME', var_export($name, true), $code), $ini), "\n";
echo ephpm_child('', 'try { ephpm_kv_get("k1"); echo "no error\n"; } catch (Ephpm\KvException $e) { echo $e->getCode() === Ephpm\KvException::CONFIG ? "new process: CONFIG\n" : $e->getMessage(); }', $ini), "\n";
?>
--EXPECT--
first: CONFIG, says it shrank
again: CONFIG, says it shrank
still running
new process: CONFIG
