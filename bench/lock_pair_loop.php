<?php
// One contender's timed loops for bench/lock_pair.php, which starts this
// script in a fresh PHP process per sample with only that contender's
// extension loaded. Usage:
//   lock_pair_loop.php CONTENDER single ITERATIONS [ENGINE]
//     one process: prints {"pair":ns,"fresh":ns,"tokens":ns,"lock":ns,
//     "get":ns,"set":ns} per operation (fresh: a pair with a new token each
//     time; tokens: making that token alone; lock: Ephpm\Lock::acquire and
//     release, ephpm only), each the median of 10 timed batches
//   lock_pair_loop.php CONTENDER same|different SECONDS [ENGINE]
//     forks 2 processes hammering one lock (same) or one lock each
//     (different) for SECONDS: prints {"pairs":n,"acquired":n,"seconds":s,
//     "cpu":s} (cpu: both children's CPU time in the timed loop)
// CONTENDER: ephpm (any engine, or the floor build), floor, apcu, yac.
// ENGINE: what ephpm_kv_stats()['engine'] must say (checked, so a row never
// measures another engine than its label says).
//
// A lock pair is, per contender:
//   ephpm, floor: ephpm_kv_setnx($key, $token, 30); ephpm_kv_del_if_eq($key, $token)
//   apcu:         apcu_add($key, $token, 30); apcu_fetch($key) === $token, then apcu_delete($key)
//   yac:          $yac->add($key, $token, 30); $yac->get($key) === $token, then $yac->delete($key)
// APCu and Yac have no compare-and-delete: their release is a fetch, a
// compare in PHP and a delete (not atomic), the fastest either can do.

[$contender, $mode, $amount] = array_slice($argv, 1, 3) + [null, null, null];
$wantEngine = $argv[4] ?? '';
$key = 'lock:bench';
$token = bin2hex(random_bytes(16));
$value = str_repeat('v', 100);

function fail(string $msg): never
{
    fwrite(STDERR, "lock_pair_loop: $msg\n");
    exit(1);
}

$yac = null;
if ($contender === 'yac') {
    if (!class_exists('Yac')) {
        fail('Yac is not loaded (-d extension=/abs/path/yac.so -d yac.enable_cli=1)');
    }
    $yac = new Yac();
}

isset(['ephpm' => 1, 'floor' => 1, 'apcu' => 1, 'yac' => 1][$contender]) || fail("unknown contender '$contender'");

require __DIR__ . '/loops.inc';

// Checks that the contender does what its row claims: a real store holds the
// lock between the two calls and refuses a second holder; the floor stores
// nothing at all.
function check(string $contender, string $key, string $token, string $wantEngine, ?Yac $yac): void
{
    $other = $token . '-other';
    switch ($contender) {
        case 'ephpm':
            $engine = ephpm_kv_stats()['engine'] ?? '(no engine field)';
            if ($wantEngine !== '' && $engine !== $wantEngine) {
                fail("ephpm_kv_stats()['engine'] is '$engine', this row measures '$wantEngine'");
            }
            $ok = ephpm_kv_setnx($key, $token, 30) && !ephpm_kv_setnx($key, $other, 30)
                && ephpm_kv_get($key) === $token && !ephpm_kv_del_if_eq($key, $other)
                && ephpm_kv_del_if_eq($key, $token) && ephpm_kv_get($key) === null;
            break;
        case 'floor':
            $ok = ephpm_kv_setnx($key, $token, 30) && ephpm_kv_setnx($key, $other, 30)
                && ephpm_kv_get($key) === null;
            $ok || fail('this library stores what setnx is given: not the benchfloor build');
            return;
        case 'apcu':
            $ok = apcu_enabled() && apcu_add($key, $token, 30) && !apcu_add($key, $other, 30)
                && apcu_fetch($key) === $token && apcu_delete($key) && apcu_fetch($key) === false;
            break;
        case 'yac':
            $ok = $yac->add($key, $token, 30) && !$yac->add($key, $other, 30)
                && $yac->get($key) === $token && $yac->delete($key) && $yac->get($key) === false;
            break;
    }
    $ok || fail("$contender does not behave as a lock store here (is it enabled for the CLI?)");
}

// shared_probe: whether a value one forked child writes is seen by the next
// one, as php-fpm workers forked from one master would (the parent itself
// never touches the store, so each child starts its own runtime).
function shared_probe(string $contender, ?Yac $yac): bool
{
    if (!function_exists('pcntl_fork')) {
        fail('pcntl is needed for the sharing probe');
    }
    $probe = 'bench:probe:' . bin2hex(random_bytes(8));
    $shared = null;
    foreach (['write', 'read'] as $step) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            $found = false;
            if ($step === 'write') {
                match ($contender) {
                    'ephpm', 'floor' => ephpm_kv_set($probe, 'x', 60),
                    'apcu' => apcu_store($probe, 'x', 60),
                    'yac' => $yac->set($probe, 'x', 60),
                };
            } else {
                $found = match ($contender) {
                    'ephpm', 'floor' => ephpm_kv_get($probe) === 'x',
                    'apcu' => apcu_fetch($probe) === 'x',
                    'yac' => $yac->get($probe) === 'x',
                };
            }
            exit($found ? 0 : 3);
        }
        pcntl_waitpid($pid, $status);
        $code = pcntl_wifexited($status) ? pcntl_wexitstatus($status) : -1;
        if ($step === 'read') {
            $shared = $code === 0;
        } elseif ($code !== 3) {
            fail("the sharing probe's writer failed (status $status)");
        }
    }
    return $shared;
}

// batched(fn, n): ns per call of fn(n / BATCHES) timed BATCHES times, the
// median batch: a batch the scheduler preempted (other load on the machine)
// does not move it.
const BATCHES = 10;
function batched(callable $fn, int $n): float
{
    $per = intdiv($n, BATCHES);
    $fn(intdiv($per, 2)); // warm up
    $ns = [];
    for ($b = 0; $b < BATCHES; $b++) {
        $start = hrtime(true);
        $fn($per);
        $ns[] = (hrtime(true) - $start) / $per;
    }
    sort($ns);
    return ($ns[BATCHES / 2 - 1] + $ns[BATCHES / 2]) / 2;
}

if ($mode === 'single') {
    $n = (int)$amount;
    $shared = shared_probe($contender, $yac);
    check($contender, $key, $token, $wantEngine, $yac);
    $result = [
        'pair' => batched(fn ($k) => loop_pairs($contender, $k, $key, $token, $yac), $n),
        'fresh' => batched(fn ($k) => loop_fresh_pairs($contender, $k, $key, $yac), $n),
        'tokens' => batched(fn ($k) => loop_tokens($k), $n),
        'shared' => $shared,
    ];
    if ($contender === 'ephpm') {
        $result['engine'] = ephpm_kv_stats()['engine'] ?? null;
        $result['lock'] = batched(fn ($k) => loop_lock($k, $key), $n);
    }
    if ($contender !== 'floor') {
        loop_set($contender, 1, $value, $yac);
        $result['get'] = batched(fn ($k) => loop_get($contender, $k, $yac), $n);
        $result['set'] = batched(fn ($k) => loop_set($contender, $k, $value, $yac), $n);
    }
    echo json_encode($result), "\n";
    exit(0);
}

if ($mode !== 'same' && $mode !== 'different') {
    fail("mode must be single, same or different, not '$mode'");
}
function_exists('pcntl_fork') || fail('pcntl is needed for the 2-process cases');
// cpu_seconds: user + system CPU of this process so far.
function cpu_seconds(): float
{
    $u = getrusage();
    return $u['ru_utime.tv_sec'] + $u['ru_utime.tv_usec'] / 1e6 + $u['ru_stime.tv_sec'] + $u['ru_stime.tv_usec'] / 1e6;
}
$seconds = (float)$amount;
// The parent never touches the store: each child starts its own runtime
// after the fork, as a php-fpm worker does, on the segment the parent
// mapped at startup.
$startAt = hrtime(true) + 300_000_000; // both children start together
$endAt = $startAt + (int)($seconds * 1e9);
$children = [];
for ($c = 0; $c < 2; $c++) {
    $pipe = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
    $pid = pcntl_fork();
    if ($pid < 0) {
        fail('fork failed');
    }
    if ($pid === 0) {
        fclose($pipe[0]);
        $myKey = $mode === 'same' ? $key : "$key:$c";
        $myToken = "$token-$c";
        // On a key of its own: the other child may hold the bench's lock.
        check($contender, "$key:check:$c", $myToken, $wantEngine, $yac);
        loop_pairs($contender, 20_000, $myKey, $myToken, $yac); // warm up
        while (($left = $startAt - hrtime(true)) > 0) {
            usleep(intdiv($left, 1000));
        }
        $pairs = $acquired = 0;
        $cpu0 = cpu_seconds();
        do {
            $acquired += loop_pairs($contender, 256, $myKey, $myToken, $yac);
            $pairs += 256;
        } while (hrtime(true) < $endAt);
        $elapsed = (hrtime(true) - $startAt) / 1e9;
        fwrite($pipe[1], json_encode(['pairs' => $pairs, 'acquired' => $acquired, 'seconds' => $elapsed,
            'cpu' => cpu_seconds() - $cpu0]));
        exit(0);
    }
    fclose($pipe[1]);
    $children[$pid] = $pipe[0];
}
$total = ['pairs' => 0, 'acquired' => 0, 'seconds' => 0.0, 'cpu' => 0.0];
foreach ($children as $pid => $r) {
    $got = json_decode(stream_get_contents($r), true);
    pcntl_waitpid($pid, $status);
    if (!is_array($got) || !pcntl_wifexited($status) || pcntl_wexitstatus($status) !== 0) {
        fail("child $pid failed");
    }
    $total['pairs'] += $got['pairs'];
    $total['acquired'] += $got['acquired'];
    $total['seconds'] = max($total['seconds'], $got['seconds']);
    $total['cpu'] += $got['cpu'];
}
echo json_encode($total), "\n";
