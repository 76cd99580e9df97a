--TEST--
A queue payload, or a leader's value with its record's 48 bytes (16 and a 32-byte token), over ephpm.max_value_size throws KvException::VALUE_TOO_LARGE and stores nothing: no job queued, nobody elected
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['server'], 'ephpm.max_value_size does not reach a server (server_value_too_large covers its --max-value-size)'); ?>
--INI--
ephpm.max_value_size=1K
--FILE--
<?php
$q = new Ephpm\Queue('queue-large:' . getmypid());
$q->push('small');
try {
    $q->push(str_repeat('x', 1025));
} catch (Ephpm\KvException $e) {
    echo $e->getCode(), ': ', $e->getMessage(), "\n";
}
var_dump($q->size(), $q->pop()->payload);
var_dump($q->push(str_repeat('x', 1024)) !== '', $q->pop()->payload === str_repeat('x', 1024));

$e = 'leader-large:' . getmypid();
try {
    Ephpm\Leader::campaign($e, str_repeat('v', 1024 - 48 + 1));
} catch (Ephpm\KvException $ex) {
    echo $ex->getCode(), ': ', $ex->getMessage(), "\n";
}
var_dump(Ephpm\Leader::current($e), ephpm_kv_exists($e));
$leader = Ephpm\Leader::campaign($e, str_repeat('v', 1024 - 48));
var_dump(strlen(Ephpm\Leader::current($e)['value']), $leader->resign());
?>
--EXPECT--
4: ephpm-kv: value is too large: 1025 bytes, max_value_size is 1024; raise ephpm.max_value_size or store smaller values
int(1)
string(5) "small"
bool(true)
bool(true)
4: ephpm-kv: value is too large: 1025 bytes, max_value_size is 1024; raise ephpm.max_value_size or store smaller values
NULL
bool(false)
int(976)
bool(true)
