--TEST--
Ephpm\Queue payloads are binary-safe: every byte value, NUL bytes, an empty payload and a large compressible one come back exactly from pop() and from the dead list
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$payloads = [
    'bytes' => implode('', array_map('chr', range(0, 255))),
    'nul' => "\0\0a\0",
    'empty' => '',
    'large' => str_repeat("line of text \0\xff\n", 20000), // 320 KB, compressed in the store
];
$q = new Ephpm\Queue('queue-binary:' . getmypid(), 0.2, 1);
foreach ($payloads as $p) {
    $q->push($p);
}
$got = [];
foreach ($payloads as $what => $p) {
    $job = $q->pop();
    echo $what, ': ', $job->payload === $p ? 'same' : 'differs (' . strlen($job->payload) . ' bytes)', "\n";
}
usleep(300000); // none acknowledged: with maxAttempts 1, all dead
$dead = $q->dead();
foreach ($dead as $i => $job) {
    echo 'dead ', array_keys($payloads)[$i], ': ', $job['payload'] === array_values($payloads)[$i] ? 'same' : 'differs', "\n";
}
var_dump(count($dead), $q->retry(), $q->pop()->payload === $payloads['bytes']);
?>
--EXPECT--
bytes: same
nul: same
empty: same
large: same
dead bytes: same
dead nul: same
dead empty: same
dead large: same
int(4)
int(4)
bool(true)
