<?php
// One contender's untimed loop for bench/profile.php, run under callgrind:
//   profile_loop.php CONTENDER CASE N
// CONTENDER: ephpm (whatever engine the ini picks) or apcu; CASE: pair
// (bench/lock_pair_loop.php's lock pair, one fixed token), get or set (100
// bytes). N operations through the same loops as the timed bench
// (bench/loops.inc), nothing else.
require __DIR__ . '/loops.inc';

[$contender, $case, $n] = array_slice($argv, 1, 3) + [null, null, '0'];
$n = (int)$n;
$value = str_repeat('v', 100);
if (!in_array($contender, ['ephpm', 'apcu'], true) || !in_array($case, ['pair', 'get', 'set'], true)) {
    fwrite(STDERR, "profile_loop: unknown contender or case '$contender $case'\n");
    exit(2);
}
loop_set($contender, 1, $value, null);
match ($case) {
    'pair' => loop_pairs($contender, $n, 'lock:bench', bin2hex(random_bytes(16)), null),
    'get' => loop_get($contender, $n, null),
    'set' => loop_set($contender, $n, $value, null),
};
