--TEST--
Lock tokens (drawn from the kernel's CSPRNG a batch at a time) are 32 lowercase hex characters, never repeat within a process (across many batches) or between two processes, and each is what the store holds for its lock
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('a thousand acquisitions; the token path runs under valgrind in every Lock test'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
const TOKENS = <<<'PHP'
    $tokens = [];
    for ($i = 0; $i < 1000; $i++) { // many batches of the pool
        $lock = Ephpm\Lock::acquire('tok:' . getmypid() . ":$i", 30);
        if ($lock === null || ephpm_kv_get($lock->name) !== $lock->token) {
            echo "lock $i: not held with its token\n";
        }
        $tokens[] = $lock->token;
        $lock->release();
    }
    echo implode(' ', $tokens);
    PHP;
ob_start();
eval(TOKENS);
$here = explode(' ', ob_get_clean());
$there = explode(' ', ephpm_child('', TOKENS));
foreach (['here' => $here, 'in another process' => $there] as $where => $tokens) {
    $hex = count(preg_grep('/^[0-9a-f]{32}$/', $tokens));
    printf("%s: %d tokens, %d of them 32 hex characters, %d distinct\n", $where, count($tokens), $hex, count(array_unique($tokens)));
}
echo 'shared between the two: ', count(array_intersect($here, $there)), "\n";
?>
--EXPECT--
here: 1000 tokens, 1000 of them 32 hex characters, 1000 distinct
in another process: 1000 tokens, 1000 of them 32 hex characters, 1000 distinct
shared between the two: 0
