<?php

declare(strict_types=1);

// One sample of bench/backends.php, in a fresh PHP process that loads only
// its contender's extension: PROCS forked processes (as php-fpm workers, the
// parent never touches the store) each take and release a lock of their own
// for SECONDS, starting together once all are connected, checked and warm.
// Prints one JSON line:
//   {"pps":n,"pairs":n,"cpu":s,"server_cpu":s,"probe":key,"token":t}
// pps: the sum of each process's pairs per second.
// cpu: CPU seconds in the timed seconds of the PHP processes and of the
// server processes whose pids are in BENCH_SERVER_PIDS (comma-separated; all
// their threads), which load on the machine changes less than pairs/s.
// probe: a key the first process wrote (ephpm_kv_set, or phpredis' SET)
// with its token as the value, so the caller can read it on the server it
// meant and know that the row measured that server.
// Usage: backends_loop.php CONTENDER PROCS SECONDS [TARGET]
// CONTENDER, and what one lock pair is (k: the process's key, t: a 32-char
// token; TTL 30 s):
//   ephpm-pair      ephpm_kv_setnx(k, t, 30) + ephpm_kv_del_if_eq(k, t)
//   ephpm-lock      Ephpm\Lock::acquire(k, 30) + ->release() (a fenced lock)
//   phpredis        $r->set(k, t, ['nx', 'px' => 30000]) + $r->evalSha(compare-and-delete, [k, t], 1)
//   phpredis-unsafe $r->set(k, t, ['nx', 'px' => 30000]) + $r->del(k): the blind release, which
//                   deletes a lock that expired and went to someone else
//   rediscluster    the phpredis pair through RedisCluster (script loaded on every master)
// ephpm reads ephpm.server from the ini; TARGET is phpredis' socket path or
// host:port, or RedisCluster's seeds host:port,host:port,...

const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';

function fail(string $msg): never
{
    fwrite(STDERR, "backends_loop: $msg\n");
    exit(1);
}

[$contender, $procs, $seconds] = array_slice($argv, 1, 3) + [null, null, null];
$target = $argv[4] ?? '';
$procs = (int)$procs;
$seconds = (float)$seconds;
$procs >= 1 && $seconds > 0 || fail('usage: backends_loop.php CONTENDER PROCS SECONDS [TARGET]');
in_array($contender, ['ephpm-pair', 'ephpm-lock', 'phpredis', 'phpredis-unsafe', 'rediscluster'], true)
    || fail("unknown contender '$contender'");

// Store: one connection and its lock pair, per contender.
final class Store
{
    private Redis|RedisCluster|null $r = null;
    private string $sha = '';

    public function __construct(private string $contender, string $target)
    {
        if (str_starts_with($contender, 'phpredis')) {
            $this->r = new Redis();
            if (str_starts_with($target, '/')) {
                $this->r->connect($target);
            } else {
                [$host, $port] = explode(':', $target);
                $this->r->connect($host, (int)$port);
            }
            $this->sha = (string)$this->r->script('load', RELEASE);
        } elseif ($contender === 'rediscluster') {
            $this->r = new RedisCluster(null, explode(',', $target));
            foreach ($this->r->_masters() as $m) {
                $this->sha = (string)$this->r->script($m, 'load', RELEASE);
            }
        }
    }

    public function acquire(string $k, string $t): bool|Ephpm\Lock
    {
        return match ($this->contender) {
            'ephpm-pair' => ephpm_kv_setnx($k, $t, 30),
            'ephpm-lock' => Ephpm\Lock::acquire($k, 30) ?? false,
            default => (bool)$this->r->set($k, $t, ['nx', 'px' => 30000]),
        };
    }

    public function release(string $k, string $t, bool|Ephpm\Lock $held): bool
    {
        return match ($this->contender) {
            'ephpm-pair' => ephpm_kv_del_if_eq($k, $t),
            'ephpm-lock' => $held->release(),
            'phpredis-unsafe' => $this->r->del($k) === 1,
            default => $this->r->evalSha($this->sha, [$k, $t], 1) === 1,
        };
    }

    public function set(string $k, string $v): void
    {
        $this->r === null ? ephpm_kv_set($k, $v, 600) : $this->r->set($k, $v, ['ex' => 600]);
    }

    // pairs: n lock pairs, written out per contender (no call per pair, as
    // in the other benches, so the loop's own cost stays small); returns how
    // many acquired.
    public function pairs(int $n, string $k, string $t): int
    {
        $got = 0;
        $r = $this->r;
        switch ($this->contender) {
            case 'ephpm-pair':
                for ($i = 0; $i < $n; $i++) {
                    if (ephpm_kv_setnx($k, $t, 30)) {
                        $got++;
                        ephpm_kv_del_if_eq($k, $t);
                    }
                }
                break;
            case 'ephpm-lock':
                for ($i = 0; $i < $n; $i++) {
                    if ($l = Ephpm\Lock::acquire($k, 30)) {
                        $got++;
                        $l->release();
                    }
                }
                break;
            case 'phpredis-unsafe':
                for ($i = 0; $i < $n; $i++) {
                    if ($r->set($k, $t, ['nx', 'px' => 30000])) {
                        $got++;
                        $r->del($k);
                    }
                }
                break;
            default:
                for ($i = 0; $i < $n; $i++) {
                    if ($r->set($k, $t, ['nx', 'px' => 30000])) {
                        $got++;
                        $r->evalSha($this->sha, [$k, $t], 1);
                    }
                }
        }
        return $got;
    }
}

// check: the contender is a lock on this server: a second acquire of a held
// lock fails, a release frees it, and then it can be taken again.
function check(Store $s, string $k, string $t): void
{
    $other = "$t-other";
    $a = $s->acquire($k, $t);
    $a !== false || fail("a free lock was not acquired ($k)");
    $s->acquire($k, $other) === false || fail("a held lock was acquired a second time ($k)");
    $s->release($k, $t, $a) || fail("the holder's release failed ($k)");
    $b = $s->acquire($k, $other);
    $b !== false || fail("a released lock could not be taken again ($k)");
    $s->release($k, $other, $b) || fail("the second holder's release failed ($k)");
}

function cpu_seconds(): float
{
    $u = getrusage();
    return $u['ru_utime.tv_sec'] + $u['ru_utime.tv_usec'] / 1e6 + $u['ru_stime.tv_sec'] + $u['ru_stime.tv_usec'] / 1e6;
}

// server_cpu: the run time of every thread of the server processes, seconds.
function server_cpu(array $pids): float
{
    $ns = 0;
    foreach ($pids as $pid) {
        foreach (glob("/proc/$pid/task/*/schedstat") ?: [] as $f) {
            $ns += (int)explode(' ', (string)@file_get_contents($f))[0];
        }
    }
    return $ns / 1e9;
}

$serverPids = array_filter(explode(',', (string)getenv('BENCH_SERVER_PIDS')));
$run = bin2hex(random_bytes(6));
$children = [];
for ($c = 0; $c < $procs; $c++) {
    $pipe = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
    $pid = pcntl_fork();
    $pid >= 0 || fail('fork failed');
    if ($pid === 0) {
        fclose($pipe[0]);
        // {c} spreads the processes' keys over a cluster's slots; keys of one
        // run never collide with another run's.
        $k = "bench:{{$run}-$c}:lock";
        $t = bin2hex(random_bytes(16));
        $s = new Store($contender, $target);
        check($s, $k, $t);
        $probe = '';
        if ($c === 0) {
            $probe = "bench:probe:$run";
            $s->set($probe, $t);
        }
        $warmEnd = hrtime(true) + 30_000_000;
        do {
            $s->pairs(1, $k, $t);
        } while (hrtime(true) < $warmEnd);
        // Ready; the timing starts when every process is.
        fwrite($pipe[1], 'r');
        fread($pipe[1], 1) === 'g' || fail('no go from the parent');
        // One pair per pass: a pair is a round trip or two (>= 10 us), the
        // clock read ~30 ns.
        $pairs = $acquired = 0;
        $cpu0 = cpu_seconds();
        $t0 = hrtime(true);
        $endAt = $t0 + (int)($seconds * 1e9);
        do {
            $acquired += $s->pairs(1, $k, $t);
            $pairs++;
        } while (hrtime(true) < $endAt);
        fwrite($pipe[1], json_encode(['pairs' => $pairs, 'acquired' => $acquired,
            'seconds' => (hrtime(true) - $t0) / 1e9, 'cpu' => cpu_seconds() - $cpu0,
            'probe' => $probe, 'token' => $t]));
        exit(0);
    }
    fclose($pipe[1]);
    $children[$pid] = $pipe[0];
}
foreach ($children as $pid => $r) {
    fread($r, 1) === 'r' || fail("process $pid did not get ready");
}
$server0 = server_cpu($serverPids);
foreach ($children as $r) {
    fwrite($r, 'g');
}
$total = ['pps' => 0.0, 'pairs' => 0, 'cpu' => 0.0, 'server_cpu' => 0.0, 'probe' => '', 'token' => ''];
foreach ($children as $pid => $r) {
    $got = json_decode((string)stream_get_contents($r), true);
    pcntl_waitpid($pid, $status);
    if (!is_array($got) || !pcntl_wifexited($status) || pcntl_wexitstatus($status) !== 0) {
        fail("process $pid failed");
    }
    // Each process has its own lock: every acquire must have succeeded.
    $got['acquired'] === $got['pairs'] || fail("process $pid acquired $got[acquired] of $got[pairs] free locks");
    $total['pps'] += $got['pairs'] / $got['seconds'];
    $total['pairs'] += $got['pairs'];
    $total['cpu'] += $got['cpu'];
    if ($got['probe'] !== '') {
        $total['probe'] = $got['probe'];
        $total['token'] = $got['token'];
    }
}
$total['server_cpu'] = server_cpu($serverPids) - $server0;
echo json_encode($total), "\n";
