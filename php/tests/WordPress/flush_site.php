<?php
// A child of ObjectCacheTest::testTwentyFlushesOfATenThousandOptionSite, on a
// segment of its own (ephpm.shm_size from the test): WordPress flushes a site
// of OPTIONS options ROUNDS times; after each flush, REQUESTS requests read
// every option as get_option() does (wp_cache_get, and on a miss
// wp_cache_add), alloptions too. A lock is held throughout, and each round
// takes a lock and writes a session. Prints what it saw as JSON.
require __DIR__ . '/bootstrap.php';

[$options, $rounds, $requests] = array_map('intval', array_slice($argv, 1, 3));
$pool = random_bytes(4096); // incompressible, as most cached data compresses little
$value = static fn (int $i, int $round): string => substr($pool, $i % 997, 200 + ($i * 37) % 1300) . ":$i:$round";
$alloptions = static function (int $round) use ($pool): array {
    $all = [];
    for ($i = 0; $i < 2000; $i++) {
        $all["autoloaded_$i"] = bin2hex(substr($pool, $i % 1000, 60)) . ":$round";
    }
    return $all;
};
$held = Ephpm\Lock::acquire('wp-flush:held', 3600);
$report = ['rounds' => [], 'refused' => 0, 'wrong' => 0];
for ($round = 0; $round < $rounds; $round++) {
    wp_cache_init();
    wp_cache_flush();
    $hits = [];
    for ($r = 0; $r < $requests; $r++) {
        wp_cache_init(); // the next request: an empty runtime cache
        $hit = 0;
        $all = wp_cache_get('alloptions', 'options', false, $found);
        if (!$found) {
            $report['refused'] += wp_cache_add('alloptions', $alloptions($round), 'options') ? 0 : 1;
        } elseif ($all !== $alloptions($round)) {
            $report['wrong']++;
        }
        for ($i = 0; $i < $options; $i++) {
            $v = wp_cache_get("option_$i", 'options', false, $found);
            if (!$found) {
                $report['refused'] += wp_cache_add("option_$i", $value($i, $round), 'options') ? 0 : 1;
            } elseif ($v === $value($i, $round)) {
                $hit++;
            } else {
                $report['wrong']++;
            }
        }
        $hits[] = $hit;
    }
    $lock = Ephpm\Lock::acquire("wp-flush:round:$round", 60, 0);
    session_id("flushround$round");
    session_start();
    $_SESSION['round'] = $round;
    session_write_close();
    $report['rounds'][] = ['hits' => $hits, 'lock' => $lock !== null && $lock->release()];
}
$report['held'] = $held->isAcquired();
$report['sessions'] = 0;
for ($round = 0; $round < $rounds; $round++) {
    session_id("flushround$round");
    session_start();
    $report['sessions'] += ($_SESSION['round'] ?? null) === $round ? 1 : 0;
    session_write_close();
}
$report['stats'] = ephpm_kv_stats();
echo json_encode($report), "\n";
