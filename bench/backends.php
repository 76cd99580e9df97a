<?php

declare(strict_types=1);

// make bench's backends figure: PHP lock pairs per second (acquire +
// release) against each backend ephpm.server can name, on loopback, from 1
// process and from PROCS processes at once (each on a lock of its own), next
// to phpredis on the same Redis in the same run.
// A backend is a row of $servers (how to start and stop it) and of $rows
// (how each transport of it is reached, and which contenders run there);
// bench/backends_loop.php runs one sample in a fresh PHP process that loads
// only its contender's extension and says exactly what a pair is. Every
// sample first checks that its contender is a lock on that server (a second
// acquire of a held lock fails; after the release it succeeds), every acquire
// in the timed loop must succeed, and the first round reads back, on the
// server the row names, a key the sample wrote there. Rounds interleave all
// rows, so the machine's noise hits them alike; medians and ranges.
//
// Usage: php -n bench/backends.php   (after make all and build/deps.sh bench redis etcd)
// Knobs: ROUNDS (5) SECONDS (0.2 per sample) PROCS (4) BACKENDS (a comma
// list of row labels' first words: ephpm-kv,redis,cluster,etcd)
// EPHPM_BENCH_ETCD_PORT (the etcd members' first port; default: free ports picked by etcd-cluster.sh)
require __DIR__ . '/sample.inc';

$begin = microtime(true);
$root = dirname(__DIR__);
$rounds = (int)(getenv('ROUNDS') ?: 5);
$seconds = (float)(getenv('SECONDS') ?: 0.2);
$procs = (int)(getenv('PROCS') ?: 4);
$only = array_filter(explode(',', (string)getenv('BACKENDS')));
$ext = "$root/build/ephpm.so";
foreach ([$ext, "$root/build/ephpm-kv"] as $f) {
    is_file($f) || die("backends: $f missing: run make all\n");
}
$phpredis = ['extension' => ['igbinary', 'redis']];
$ephpm = fn (string $url) => ['extension' => [$ext], 'ephpm.server' => $url, 'ephpm.server_timeout' => '5'];

// cmd(argv...): runs a command, returns its stdout; fails the bench on a
// non-zero exit.
function cmd(string ...$argv): string
{
    $p = proc_open($argv, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = (string)stream_get_contents($pipes[1]);
    $err = (string)stream_get_contents($pipes[2]);
    $rc = proc_close($p);
    if ($rc !== 0) {
        fwrite(STDERR, 'backends: ' . implode(' ', $argv) . " failed (exit $rc): $out$err\n");
        exit(1);
    }
    return $out;
}

function free_port(): int
{
    $s = stream_socket_server('tcp://127.0.0.1:0');
    $port = (int)substr(strrchr(stream_socket_get_name($s, false), ':'), 1);
    fclose($s);
    return $port;
}

// wait_for(fn): until fn() is true, at most 10 s.
function wait_for(callable $fn, string $what): void
{
    for ($i = 0; $i < 200; $i++) {
        if ($fn()) {
            return;
        }
        usleep(50_000);
    }
    fwrite(STDERR, "backends: $what did not start in 10 s\n");
    exit(1);
}

$work = rtrim(is_dir('/dev/shm') ? '/dev/shm' : sys_get_temp_dir(), '/') . '/ephpm-bench-backends.' . getmypid();
mkdir($work, 0700);
$stops = [];
$cleanup = function () use (&$stops, $work) {
    foreach (array_reverse($stops) as $stop) {
        $stop();
    }
    $stops = [];
    cmd('rm', '-rf', $work);
};
register_shutdown_function($cleanup);
pcntl_async_signals(true);
foreach ([SIGINT, SIGTERM] as $sig) {
    pcntl_signal($sig, fn () => exit(1)); // exit runs the shutdown function
}

// A server's start(dir) returns what its rows need; it registers its stop.
// read(info, row, key) is what the server holds under key (the probe).
$servers = [
    'ephpm-kv' => [
        'start' => function (string $dir) use ($root, &$stops): array {
            $port = free_port();
            $p = proc_open([$root . '/build/ephpm-kv', '--unix', "$dir/kv.sock", '--port', (string)$port,
                '--memory-limit', '256M'], [1 => ['file', '/dev/null', 'w'], 2 => ['file', "$dir/kv.log", 'w']], $pipes);
            $stops[] = function () use ($p) {
                proc_terminate($p);
                proc_close($p);
            };
            wait_for(fn () => file_exists("$dir/kv.sock") && @fsockopen('127.0.0.1', $port), 'ephpm-kv');
            return ['sock' => "$dir/kv.sock", 'port' => $port, 'pids' => [proc_get_status($p)['pid']]];
        },
        'read' => fn (array $i, string $k) => trim(cmd('redis-cli', '-s', $i['sock'], '--raw', 'GET', $k)),
    ],
    'redis' => [
        'start' => function (string $dir) use (&$stops): array {
            $port = free_port();
            // As build/phpt.sh's redis mode: noeviction (a lock must never be
            // evicted), nothing saved.
            $p = proc_open(['redis-server', '--port', (string)$port, '--bind', '127.0.0.1', '--unixsocket',
                "$dir/redis.sock", '--save', '', '--appendonly', 'no', '--dir', $dir, '--maxmemory-policy',
                'noeviction', '--logfile', "$dir/redis.log"], [1 => ['file', '/dev/null', 'w']], $pipes);
            $stops[] = function () use ($p) {
                proc_terminate($p);
                proc_close($p);
            };
            wait_for(fn () => file_exists("$dir/redis.sock") && @fsockopen('127.0.0.1', $port), 'redis-server');
            return ['sock' => "$dir/redis.sock", 'port' => $port, 'pids' => [proc_get_status($p)['pid']]];
        },
        'read' => fn (array $i, string $k) => trim(cmd('redis-cli', '-s', $i['sock'], '--raw', 'GET', $k)),
    ],
    // The 3-master cluster of the cluster backend's tests (build/redis-cluster.sh).
    'cluster' => [
        'script' => "$root/build/redis-cluster.sh",
        'start' => function (string $dir) use ($root, &$stops): array {
            $stops[] = fn () => is_file("$dir/pids") && cmd('kill', ...file("$dir/pids", FILE_IGNORE_NEW_LINES));
            $url = trim(cmd("$root/build/redis-cluster.sh", $dir));
            return ['url' => $url, 'seeds' => substr($url, strlen('redis-cluster://')),
                'pids' => file("$dir/pids", FILE_IGNORE_NEW_LINES)];
        },
        'read' => function (array $i, string $k): string {
            [$host, $port] = explode(':', explode(',', $i['seeds'])[0]);
            return trim(cmd('redis-cli', '-c', '-h', $host, '-p', $port, '--raw', 'GET', $k));
        },
    ],
    // The 3-member etcd cluster of the etcd backend's tests (build/etcd-cluster.sh).
    'etcd' => [
        'script' => "$root/build/etcd-cluster.sh",
        'start' => function (string $dir) use ($root, &$stops): array {
            $stops[] = fn () => cmd("$root/build/etcd-cluster.sh", 'stop', $dir);
            $ep = trim(cmd("$root/build/etcd-cluster.sh", 'start', $dir, getenv('EPHPM_BENCH_ETCD_PORT') ?: 'auto'));
            return ['endpoints' => $ep, 'pids' => array_map(fn ($i) => trim(file_get_contents("$dir/m$i/pid")), [1, 2, 3])];
        },
        'read' => function (array $i, string $k): string {
            // The etcd engine keeps data under ephpm/k/ (go/etcdkv/etcdkv.go).
            $out = cmd('env', 'ETCDCTL_API=3', 'etcdctl', '--endpoints', $i['endpoints'], 'get', '--print-value-only',
                "ephpm/k/$k");
            return trim($out);
        },
    ],
];

// label => [server, [contender => [ini, target]], the reference row for the
// ratio (phpredis on the same server where it runs there)]
$rows = [
    'ephpm-kv unix' => ['ephpm-kv', fn ($i) => [
        'ephpm-pair' => [$ephpm("unix://$i[sock]"), ''],
        'ephpm-lock' => [$ephpm("unix://$i[sock]"), ''],
    ], ['redis unix', 'phpredis']],
    'ephpm-kv tcp' => ['ephpm-kv', fn ($i) => [
        'ephpm-pair' => [$ephpm("tcp://127.0.0.1:$i[port]"), ''],
        'ephpm-lock' => [$ephpm("tcp://127.0.0.1:$i[port]"), ''],
    ], ['redis tcp', 'phpredis']],
    'redis unix' => ['redis', fn ($i) => [
        'ephpm-pair' => [$ephpm("unix://$i[sock]"), ''],
        'ephpm-lock' => [$ephpm("unix://$i[sock]"), ''],
        'phpredis' => [$phpredis, $i['sock']],
        'phpredis-unsafe' => [$phpredis, $i['sock']],
    ], ['redis unix', 'phpredis']],
    'redis tcp' => ['redis', fn ($i) => [
        'ephpm-pair' => [$ephpm("redis://127.0.0.1:$i[port]"), ''],
        'ephpm-lock' => [$ephpm("redis://127.0.0.1:$i[port]"), ''],
        'phpredis' => [$phpredis, "127.0.0.1:$i[port]"],
        'phpredis-unsafe' => [$phpredis, "127.0.0.1:$i[port]"],
    ], ['redis tcp', 'phpredis']],
    'cluster tcp' => ['cluster', fn ($i) => [
        'ephpm-pair' => [$ephpm($i['url']), ''],
        'ephpm-lock' => [$ephpm($i['url']), ''],
        'rediscluster' => [$phpredis, $i['seeds']],
    ], ['cluster tcp', 'rediscluster']],
    'etcd tcp' => ['etcd', fn ($i) => [
        'ephpm-pair' => [$ephpm("etcd://$i[endpoints]"), ''],
        'ephpm-lock' => [$ephpm("etcd://$i[endpoints]"), ''],
    ], ['redis tcp', 'phpredis']],
];
$names = [
    'ephpm-pair' => 'ephpm_kv_setnx + del_if_eq',
    'ephpm-lock' => 'Ephpm\Lock acquire + release',
    'phpredis' => 'phpredis SET NX PX + EVALSHA',
    'phpredis-unsafe' => 'phpredis SET NX PX + DEL (UNSAFE)',
    'rediscluster' => 'RedisCluster SET NX PX + EVALSHA',
];

// Start the servers that have rows, skipping a backend whose start script
// is not in this tree.
$info = [];
foreach ($rows as $label => [$server]) {
    $first = explode(' ', $label)[0];
    if (($only && !in_array($first, $only, true))) {
        unset($rows[$label]);
        continue;
    }
    if (isset($servers[$server]['script']) && !is_file($servers[$server]['script'])) {
        fwrite(STDERR, "backends: {$servers[$server]['script']} missing: no '$label' row\n");
        unset($rows[$label]);
        continue;
    }
    if (!isset($info[$server])) {
        $dir = "$work/$server";
        mkdir($dir);
        $info[$server] = $servers[$server]['start']($dir);
    }
}
$cells = [];
foreach ($rows as $label => [$server, $contenders]) {
    foreach ($contenders($info[$server]) as $c => $spec) {
        $cells[] = [$label, $c, $spec];
    }
}

// sample(label, contender, spec, procs): the decoded JSON line of one
// backends_loop.php process.
function sample(string $label, string $c, array $spec, int $procs, float $seconds, array $pids): array
{
    [$ini, $target] = $spec;
    $argv = [PHP_BINARY, '-n'];
    foreach ($ini as $k => $vs) {
        foreach ((array)$vs as $v) {
            array_push($argv, '-d', "$k=$v");
        }
    }
    array_push($argv, __DIR__ . '/backends_loop.php', $c, (string)$procs, (string)$seconds, $target);
    $env = getenv() + ['BENCH_SERVER_PIDS' => implode(',', $pids)];
    return run_sample($argv, "backends: $label $c x$procs", $env);
}

$load0 = loadavg();
$t0 = microtime(true);
$pps = [];
$modes = array_unique([1, $procs]);
for ($r = 0; $r < $rounds; $r++) {
    foreach ($modes as $n) {
        foreach ($cells as [$label, $c, $spec]) {
            $server = $rows[$label][0];
            $got = sample($label, $c, $spec, $n, $seconds, $info[$server]['pids']);
            $pps[$n][$label][$c][] = $got['pps'];
            $cpu[$n][$label][$c]['php'][] = 1e6 * $got['cpu'] / $got['pairs'];
            $cpu[$n][$label][$c]['server'][] = 1e6 * $got['server_cpu'] / $got['pairs'];
            if ($r === 0 && $n === 1) {
                // The sample wrote its token under the probe key: on this row's server?
                $read = $servers[$server]['read']($info[$server], $got['probe']);
                if ($read !== $got['token']) {
                    fwrite(STDERR, "backends: $label $c: the probe key $got[probe] reads '$read' on the "
                        . "$server server, not the sample's token: this row did not measure that server\n");
                    exit(1);
                }
            }
        }
    }
}

printf("lock pairs per second (acquire + release, lock TTL 30 s) from PHP %s on loopback, each process on a\n"
    . "lock of its own; %d rounds x %.2f s per sample, all rows taking turns each round; median (min-max) over\n"
    . "rounds; ratio: median / the median of phpredis (SET NX PX + EVALSHA) on the same Redis, or on the Redis\n"
    . "named (same transport); for the cluster, RedisCluster on it; CPU: microseconds of CPU per pair, median,\n"
    . "of the PHP processes + the server's (all its nodes), and the sum's ratio to the same reference (load on\n"
    . "the machine moves it much less than pairs/s); %.0f s in all (servers started in %.0f s); load average\n"
    . "%s at start, %s at end\n",
    PHP_VERSION, $rounds, $seconds, microtime(true) - $begin, $t0 - $begin, $load0, loadavg());
foreach ($modes as $n) {
    printf("  %-14s %-34s %-22s %-20s %s\n", $n === 1 ? '1 process' : "$n processes", 'contender', 'pairs/s',
        'ratio', 'CPU us/pair');
    foreach ($rows as $label => [$server, , [$refRow, $refC]]) {
        foreach ($pps[$n][$label] as $c => $xs) {
            $ref = isset($pps[$n][$refRow][$refC]) ? median($pps[$n][$refRow][$refC]) : null;
            $ratio = $ref === null ? '-' : sprintf('%.2fx', median($xs) / $ref)
                . ($refRow === $label ? '' : " ($refRow)");
            $u = $cpu[$n][$label][$c];
            $us = median($u['php']) + median($u['server']);
            $refCpu = isset($cpu[$n][$refRow][$refC])
                ? median($cpu[$n][$refRow][$refC]['php']) + median($cpu[$n][$refRow][$refC]['server']) : null;
            printf("  %-14s %-34s %-22s %-20s %s\n", $label, $names[$c],
                sprintf('%.0f (%.0f-%.0f)', median($xs), min($xs), max($xs)), $ratio,
                sprintf('%.1f + %.1f', median($u['php']), median($u['server']))
                . ($refCpu === null ? '' : sprintf(' (%.2fx)', $us / $refCpu)));
        }
    }
}
