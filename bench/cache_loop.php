<?php
// One sample of bench/cache.php, in a PHP process with only its contender's
// extension loaded. Prints one JSON line.
//   cache_loop.php ephpm|apcu hits TRACE_FILE VALUE_BYTES
//     the trace cache-aside (a miss writes the key, evictable on ephpm);
//     hits, and the entries held at the end
//   cache_loop.php ephpm|apcu writes N VALUE_BYTES
//     ns per write of N new keys into the empty store, then (after filling
//     it) ns per write of N new keys into the full one
[, $who, $mode, $arg, $bytes] = $argv;
$value = random_bytes((int) $bytes); // incompressible: no contender compresses it away
if ($who === 'ephpm') {
    $get = fn (string $k) => ephpm_kv_get($k);
    $put = fn (string $k) => ephpm_kv_set($k, $value, 0, true);
    $entries = fn () => ephpm_kv_stats()['keys'];
} else {
    $get = fn (string $k) => apcu_fetch($k);
    $put = fn (string $k) => apcu_store($k, $value);
    $entries = fn () => apcu_cache_info(true)['num_entries'];
}
if ($mode === 'hits') {
    $trace = unpack('V*', file_get_contents($arg));
    $hits = 0;
    $most = 0;
    foreach ($trace as $i => $k) {
        if ($who === 'ephpm' ? ephpm_kv_get("k$k") !== null : apcu_fetch("k$k") !== false) {
            $hits++;
        } else {
            $put("k$k");
        }
        if ($i % 1000 === 0) {
            $most = max($most, $entries()); // APCu's count drops to 0 at each expunge
        }
    }
    echo json_encode(['hits' => $hits, 'reads' => count($trace), 'entries' => $entries(), 'most' => $most,
        'evicted' => $who === 'ephpm' ? ephpm_kv_stats()['evicted'] : null,
        'expunges' => $who === 'apcu' ? apcu_cache_info(true)['expunges'] : null]), "\n";
    exit;
}
$n = (int) $arg;
$put('warm-up'); // ephpm starts Go on its first call: not a write's cost
$timed = function (string $prefix) use ($n, $put): float {
    $t = hrtime(true);
    for ($i = 0; $i < $n; $i++) {
        $put("$prefix$i");
    }
    return (hrtime(true) - $t) / $n;
};
$empty = $timed('empty:');
for ($i = 0; $i < 1_000_000; $i++) { // until the store is full: ephpm evicts, APCu expunges
    $put("fill:$i");
    if ($i % 100 === 0 && ($who === 'ephpm' ? ephpm_kv_stats()['evicted'] : apcu_cache_info(true)['expunges']) > 0) {
        break;
    }
}
echo json_encode(['empty' => $empty, 'full' => $timed('full:')]), "\n";
