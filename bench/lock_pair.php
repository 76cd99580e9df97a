<?php
// ns per lock acquire+release pair (and per get / set) for ephpm next to APCu
// and a plain PHP array, measured in the same run. Rounds are interleaved so
// machine noise hits every contender alike; medians are reported.
//
// APCu has no compare-and-delete, so its release is the GET-compare-DEL in
// two calls that the seeds warn about: it is the fastest APCu can do, and
// not atomic.
//
// php -n -d extension=build/ephpm.so -d extension=apcu -d apc.enable_cli=1 bench/lock_pair.php

const ITERATIONS = 200_000;
const ROUNDS = 9;

$token = bin2hex(random_bytes(16));
$value = str_repeat('v', 100);
$haveApcu = function_exists('apcu_add') && apcu_enabled();

$cases = [
    'lock pair' => [
        'ephpm' => function (int $n) use ($token) {
            for ($i = 0; $i < $n; $i++) {
                ephpm_kv_setnx('lock:bench', $token, 30);
                ephpm_kv_del_if_eq('lock:bench', $token);
            }
        },
        'apcu' => function (int $n) use ($token) {
            for ($i = 0; $i < $n; $i++) {
                apcu_add('lock:bench', $token, 30);
                if (apcu_fetch('lock:bench') === $token) {
                    apcu_delete('lock:bench');
                }
            }
        },
        'array' => function (int $n) use ($token) {
            $store = [];
            for ($i = 0; $i < $n; $i++) {
                if (!isset($store['lock:bench'])) {
                    $store['lock:bench'] = $token;
                }
                if ($store['lock:bench'] === $token) {
                    unset($store['lock:bench']);
                }
            }
        },
    ],
    'get (100 B)' => [
        'ephpm' => function (int $n) {
            for ($i = 0; $i < $n; $i++) {
                ephpm_kv_get('bench:value');
            }
        },
        'apcu' => function (int $n) {
            for ($i = 0; $i < $n; $i++) {
                apcu_fetch('bench:value');
            }
        },
        'array' => function (int $n) use ($value) {
            $store = ['bench:value' => $value];
            for ($i = 0; $i < $n; $i++) {
                $v = $store['bench:value'] ?? null;
            }
        },
    ],
    'set (100 B)' => [
        'ephpm' => function (int $n) use ($value) {
            for ($i = 0; $i < $n; $i++) {
                ephpm_kv_set('bench:value', $value);
            }
        },
        'apcu' => function (int $n) use ($value) {
            for ($i = 0; $i < $n; $i++) {
                apcu_store('bench:value', $value);
            }
        },
        'array' => function (int $n) use ($value) {
            $store = [];
            for ($i = 0; $i < $n; $i++) {
                $store['bench:value'] = $value;
            }
        },
    ],
];

ephpm_kv_set('bench:value', $value);
if ($haveApcu) {
    apcu_store('bench:value', $value);
}

$samples = [];
foreach ($cases as $case => $contenders) {
    foreach ($contenders as $name => $fn) {
        if ($name === 'apcu' && !$haveApcu) {
            continue;
        }
        $fn(10_000); // warm up
    }
}
for ($round = 0; $round < ROUNDS; $round++) {
    foreach ($cases as $case => $contenders) {
        foreach ($contenders as $name => $fn) {
            if ($name === 'apcu' && !$haveApcu) {
                continue;
            }
            $start = hrtime(true);
            $fn(ITERATIONS);
            $samples[$case][$name][] = (hrtime(true) - $start) / ITERATIONS;
        }
    }
}

function median(array $xs): float
{
    sort($xs);
    return $xs[intdiv(count($xs), 2)];
}

printf("PHP %s, %d rounds x %d iterations, median ns per operation\n", PHP_VERSION, ROUNDS, ITERATIONS);
printf("%-12s %10s %10s %10s %14s\n", 'operation', 'ephpm', 'apcu', 'array', 'ephpm/apcu');
foreach ($samples as $case => $byName) {
    $e = median($byName['ephpm']);
    $a = isset($byName['apcu']) ? median($byName['apcu']) : NAN;
    printf("%-12s %10.1f %10s %10.1f %14s\n", $case, $e,
        $haveApcu ? sprintf('%.1f', $a) : 'n/a', median($byName['array']),
        $haveApcu ? sprintf('%.2fx', $e / $a) : 'n/a');
}
if (!$haveApcu) {
    echo "APCu not loaded: load it with -d extension=apcu -d apc.enable_cli=1 for the baseline\n";
}
