<?php
// phpredis (the Redis extension PHP people already use) against ephpm-kv.
$socket = $argv[1];
$passed = $failed = 0;
function check(string $what, mixed $got, mixed $want): void
{
    global $passed, $failed;
    $ok = $got === $want;
    $ok ? $passed++ : $failed++;
    printf("%s phpredis: %s%s\n", $ok ? 'ok  ' : 'FAIL', $what, $ok ? '' : ' (got ' . var_export($got, true) . ', want ' . var_export($want, true) . ')');
}

$r = new Redis();
$r->connect($socket);
$r->flushAll();
check('SET NX PX acquires', $r->set('lock', 'tokA', ['NX', 'PX' => 200]), true);
check('SET NX PX on a held lock', $r->set('lock', 'tokB', ['NX', 'PX' => 200]), false);
$pttl = $r->pttl('lock');
check('PTTL within the lease', $pttl > 0 && $pttl <= 200, true);
check('DELIFEQ with the wrong token', $r->rawCommand('DELIFEQ', 'lock', 'tokB'), 0);
check('DELIFEQ with the owner token', $r->rawCommand('DELIFEQ', 'lock', 'tokA'), 1);
check('GET after release', $r->get('lock'), false);
check('SET EX then TTL', [$r->set('k', 'v', ['EX' => 100]), $r->ttl('k')], [true, 100]);
check('INCR / INCRBY', [$r->incr('n'), $r->incrBy('n', 9)], [1, 10]);
check('MSET / MGET', [$r->mset(['a' => '1', 'b' => '2']), $r->mget(['a', 'b', 'c'])], [true, ['1', '2', false]]);
check('EXISTS / DEL with several keys', [$r->exists('a', 'b', 'c'), $r->del('a', 'b', 'c')], [2, 2]);
check('binary-safe value', [$r->set('bin', "\0\xff\0"), $r->get('bin')], [true, "\0\xff\0"]);
check('DBSIZE', $r->dbSize(), 3); // k, n, bin
check('unknown command is an error', [$r->rawCommand('NOPE'), str_starts_with((string)$r->getLastError(), 'ERR unknown command')], [false, true]);
printf("phpredis: %d passed, %d failed\n", $passed, $failed);
exit($failed ? 1 : 0);
