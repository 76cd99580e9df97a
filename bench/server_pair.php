<?php
// Acquire+release pairs per second from PHP: ephpm's server mode next to
// phpredis -> redis-server, both over a unix socket, in one run. Redis 7.0
// has no DELIFEQ, so its release is the usual compare-and-delete Lua script
// (EVALSHA), the fastest correct release it offers.
// php ... bench/server_pair.php /path/redis.sock

const ITERATIONS = 20_000;
const ROUNDS = 7;

$redis = new Redis();
$redis->connect($argv[1]);
$release = $redis->script('load', 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end');
$token = bin2hex(random_bytes(16));

$contenders = [
    'ephpm server mode' => function (int $n) use ($token) {
        for ($i = 0; $i < $n; $i++) {
            ephpm_kv_setnx('lock:bench', $token, 30) || throw new RuntimeException('not acquired');
            ephpm_kv_del_if_eq('lock:bench', $token);
        }
    },
    'phpredis + redis-server' => function (int $n) use ($redis, $release, $token) {
        for ($i = 0; $i < $n; $i++) {
            $redis->set('lock:bench', $token, ['NX', 'PX' => 30000]) || throw new RuntimeException('not acquired');
            $redis->evalSha($release, ['lock:bench', $token], 1);
        }
    },
];
foreach ($contenders as $fn) {
    $fn(1000);
}
$samples = [];
for ($round = 0; $round < ROUNDS; $round++) {
    foreach ($contenders as $name => $fn) {
        $start = hrtime(true);
        $fn(ITERATIONS);
        $samples[$name][] = ITERATIONS / ((hrtime(true) - $start) / 1e9);
    }
}
printf("lock pairs per second from one PHP process, median of %d rounds x %d pairs\n", ROUNDS, ITERATIONS);
foreach ($samples as $name => $xs) {
    sort($xs);
    $median[$name] = $xs[intdiv(count($xs), 2)];
    printf("  %-26s %10.0f pairs/s\n", $name, $median[$name]);
}
printf("  ephpm / redis              %10.2fx\n", $median['ephpm server mode'] / $median['phpredis + redis-server']);
