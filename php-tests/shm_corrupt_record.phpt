--TEST--
A record a stray write changed in a named segment: a get throws Ephpm\KvException CORRUPT naming the key and returns none of the segment's other bytes; the record is quarantined (counted in the stats, still holding its key, its holder's release refused) until a write replaces it
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('its child chooses its engine'); ?>
--FILE--
<?php
require __DIR__ . '/shm.inc';
$name = ephpm_test_shm_name();
$code = <<<'PHP'
function code_of(callable $fn): string
{
    try {
        return var_export($fn(), true);
    } catch (Ephpm\KvException $e) {
        return ($e->getCode() === Ephpm\KvException::CORRUPT ? 'CORRUPT' : "code {$e->getCode()}")
            . (str_contains($e->getMessage(), '"session:victim"') ? ', names the key' : ': ' . $e->getMessage());
    }
}
ephpm_kv_setnx('session:victim', 'token-7f3a9c', 60);
ephpm_kv_set('other', 'untouched');
// Another process writes into the segment: one byte of the value flipped.
$seg = file_get_contents('/dev/shm' . NAME);
$at = strpos($seg, 'token-7f3a9c');
$f = fopen('/dev/shm' . NAME, 'r+b');
fseek($f, $at + 6);
fwrite($f, 'X');
fclose($f);
echo 'get: ', code_of(fn() => ephpm_kv_get('session:victim')), "\n";
echo 'again: ', code_of(fn() => ephpm_kv_get('session:victim')), "\n";
echo 'quarantined: ', ephpm_kv_stats()['quarantined'], "\n";
echo 'setnx by another: ', code_of(fn() => ephpm_kv_setnx('session:victim', 'other-token', 60)), "\n";
echo 'release by its holder: ', code_of(fn() => ephpm_kv_del_if_eq('session:victim', 'token-7f3a9c')), "\n";
echo 'other key: ', ephpm_kv_get('other'), "\n";
ephpm_kv_set('session:victim', 'rewritten');
echo 'after a set: ', ephpm_kv_get('session:victim'), ', quarantined ', ephpm_kv_stats()['quarantined'], "\n";
PHP;
$ini = ['ephpm.shm_name' => $name, 'ephpm.shm_size' => '1M', 'ephpm.compress_min' => '0'];
echo ephpm_child('', str_replace('NAME', var_export($name, true), $code), $ini), "\n";
?>
--EXPECT--
get: CORRUPT, names the key
again: CORRUPT, names the key
quarantined: 1
setnx by another: false
release by its holder: CORRUPT, names the key
other key: untouched
after a set: rewritten, quarantined 0
