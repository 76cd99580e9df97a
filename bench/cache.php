<?php
// make bench's cache figures, every contender in the same run:
//  1. hit ratio on a Zipf(0.99) trace of 1 M reads over 100k keys,
//     cache-aside (a miss writes the key) with 1200-byte values, into 16 MiB:
//     the shared engine's SIEVE (about 10% of the keys fit), APCu (which
//     wipes its whole cache when full), and an exact LRU of as many entries
//     as the shared engine held, simulated here on the same trace;
//  2. ns per cache write of a new key into an empty 16 MiB store and into
//     a full one (each write then evicts; APCu expunges everything now and
//     then): the issue's bound is full <= 2x empty.
// Each sample is a fresh PHP process with only its contender's extension
// (bench/cache_loop.php); contenders take turns in every round.
//
// Usage: php bench/cache.php   (after make all and build/deps.sh bench)
// Knobs: ROUNDS (3) READS (1000000) WRITES (3000)
require __DIR__ . '/sample.inc';

$root = dirname(__DIR__);
$rounds = (int) (getenv('ROUNDS') ?: 3);
$reads = (int) (getenv('READS') ?: 1_000_000);
$writes = (int) (getenv('WRITES') ?: 3000);
const KEYS = 100_000, VALUE_BYTES = 1200, SIZE = '16M';
$contenders = [
    'shared engine' => ['ephpm', ['extension' => "$root/build/ephpm.so", 'ephpm.shm_size' => SIZE]],
    'APCu' => ['apcu', ['extension' => 'apcu', 'apc.enable_cli' => '1', 'apc.shm_size' => SIZE]],
];

function run(string $label, string ...$args): array
{
    global $contenders;
    [$who, $ini] = $contenders[$label];
    $cmd = [PHP_BINARY, '-n'];
    foreach ($ini as $k => $v) {
        array_push($cmd, '-d', "$k=$v");
    }
    array_push($cmd, __DIR__ . '/cache_loop.php', $who, ...$args);
    return run_sample($cmd, "cache: $label");
}

// Key k drawn with weight 1/(k+1)^0.99, as go/kv/cachesim's ZipfTrace.
function zipf_trace(int $n, int $keys, float $s, int $seed): array
{
    $cdf = [];
    $sum = 0.0;
    for ($k = 0; $k < $keys; $k++) {
        $cdf[$k] = $sum += 1 / (($k + 1) ** $s);
    }
    mt_srand($seed);
    $trace = [];
    for ($i = 0; $i < $n; $i++) {
        $x = mt_rand() / mt_getrandmax() * $sum;
        [$lo, $hi] = [0, $keys - 1];
        while ($lo < $hi) {
            $mid = ($lo + $hi) >> 1;
            if ($cdf[$mid] < $x) {
                $lo = $mid + 1;
            } else {
                $hi = $mid;
            }
        }
        $trace[] = $lo;
    }
    return $trace;
}

// Hits of an exact LRU of $capacity entries: a doubly linked list over key
// numbers, most recent at the head.
function lru_hits(array $trace, int $capacity): int
{
    $prev = $next = [];
    $head = $tail = -1;
    $size = $hits = 0;
    foreach ($trace as $k) {
        if (isset($prev[$k])) {
            $hits++;
            if ($head === $k) {
                continue;
            }
            [$p, $n] = [$prev[$k], $next[$k]];
            $next[$p] = $n;
            if ($n !== -1) {
                $prev[$n] = $p;
            } else {
                $tail = $p;
            }
        } elseif (++$size > $capacity) {
            $old = $tail;
            $tail = $prev[$old];
            $next[$tail] = -1;
            unset($prev[$old], $next[$old]);
            $size--;
        }
        $prev[$k] = -1;
        $next[$k] = $head;
        if ($head !== -1) {
            $prev[$head] = $k;
        }
        $head = $k;
        if ($tail === -1) {
            $tail = $k;
        }
    }
    return $hits;
}

$trace = zipf_trace($reads, KEYS, 0.99, 1);
$traceFile = tempnam(sys_get_temp_dir(), 'ephpm-zipf');
file_put_contents($traceFile, pack('V*', ...$trace));
$hits = $held = $writeNs = [];
for ($r = 0; $r < $rounds; $r++) {
    foreach ($contenders as $label => $_) {
        $got = run($label, 'hits', $traceFile, (string) VALUE_BYTES);
        $hits[$label][] = 100 * $got['hits'] / $got['reads'];
        $held[$label][] = $label === 'APCu' ? $got['most'] : $got['entries'];
        $extra[$label] = $label === 'APCu' ? "{$got['expunges']} expunges (each empties the cache)" : "{$got['evicted']} evicted";
        $w = run($label, 'writes', (string) $writes, (string) VALUE_BYTES);
        $writeNs[$label]['empty'][] = $w['empty'];
        $writeNs[$label]['full'][] = $w['full'];
    }
}
unlink($traceFile);
$capacity = (int) median($held['shared engine']);
$lru = 100 * lru_hits($trace, $capacity) / $reads;

printf("cache hit ratio (PHP %s): Zipf(0.99), %d reads over %d keys, cache-aside, %d-byte values, %s each;\n"
    . "  %% of reads that hit, median (min-max) of %d rounds\n", PHP_VERSION, $reads, KEYS, VALUE_BYTES, SIZE, $rounds);
printf("  %-26s %-22s %s\n", 'contender', 'hit %', 'entries held');
foreach ($contenders as $label => $_) {
    printf("  %-26s %-22s %s, %s (last round)\n", $label, fmt($hits[$label], 1),
        ($label === 'APCu' ? 'at most ' : '') . fmt($held[$label]), $extra[$label]);
}
printf("  %-26s %-22s %d (as many as the shared engine held)\n", 'exact LRU (simulated)', sprintf('%.1f', $lru), $capacity);
printf("  shared engine - exact LRU: %+.1f points (bound: >= 0): %s\n", median($hits['shared engine']) - $lru,
    median($hits['shared engine']) >= $lru ? 'met' : 'MISSED');
echo "\n";
printf("cache writes of new %d-byte keys, ns per write, median (min-max) of %d rounds of %d writes\n", VALUE_BYTES, $rounds, $writes);
printf("  %-26s %-22s %-22s %s\n", 'contender', 'into an empty store', 'into a full one', 'full / empty');
foreach ($contenders as $label => $_) {
    $ratio = median($writeNs[$label]['full']) / median($writeNs[$label]['empty']);
    printf("  %-26s %-22s %-22s %.2fx%s\n", $label, fmt($writeNs[$label]['empty']), fmt($writeNs[$label]['full']), $ratio,
        $label === 'shared engine' ? ($ratio <= 2 ? ' (bound: <= 2x): met' : ' (bound: <= 2x): MISSED') : '');
}
