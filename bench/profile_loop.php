<?php
// One contender's untimed loop for bench/profile.php, run under callgrind:
//   profile_loop.php CONTENDER CASE N
// CONTENDER: ephpm (whatever engine the ini picks) or apcu; CASE: pair
// (the lock pair of bench/lock_pair_loop.php, one fixed token), get or set
// (100 bytes). N operations, nothing else per iteration but the loop.
[$contender, $case, $n] = array_slice($argv, 1, 3) + [null, null, '0'];
$n = (int)$n;
$key = 'lock:bench';
$token = bin2hex(random_bytes(16));
$value = str_repeat('v', 100);
match ($contender) {
    'ephpm' => ephpm_kv_set('bench:value', $value),
    'apcu' => apcu_store('bench:value', $value),
};
switch ("$contender $case") {
    case 'ephpm pair':
        for ($i = 0; $i < $n; $i++) {
            ephpm_kv_setnx($key, $token, 30);
            ephpm_kv_del_if_eq($key, $token);
        }
        break;
    case 'apcu pair':
        for ($i = 0; $i < $n; $i++) {
            apcu_add($key, $token, 30);
            if (apcu_fetch($key) === $token) {
                apcu_delete($key);
            }
        }
        break;
    case 'ephpm get':
        for ($i = 0; $i < $n; $i++) {
            ephpm_kv_get('bench:value');
        }
        break;
    case 'apcu get':
        for ($i = 0; $i < $n; $i++) {
            apcu_fetch('bench:value');
        }
        break;
    case 'ephpm set':
        for ($i = 0; $i < $n; $i++) {
            ephpm_kv_set('bench:value', $value);
        }
        break;
    case 'apcu set':
        for ($i = 0; $i < $n; $i++) {
            apcu_store('bench:value', $value);
        }
        break;
    default:
        fwrite(STDERR, "profile_loop: unknown contender or case '$contender $case'\n");
        exit(2);
}
