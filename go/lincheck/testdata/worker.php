<?php

declare(strict_types=1);

// One PHP client of the lincheck workload (go/lincheck/php_test.go): lock
// traffic through the extension, every call logged as a JSON line with its
// hrtime (CLOCK_MONOTONIC, shared by every process of the host) at call and
// return. A store that could not be reached or did not answer in time
// (KvException::UNAVAILABLE) is logged as unknown: it may have happened.
//
// php worker.php CLIENT LOGFILE SECONDS TTL OVERRUN RELEASE KEY...
// OVERRUN: percent of holders that keep the lock past its TTL; RELEASE:
// "del_if_eq" (Ephpm\Lock::release), or "del", the broken release the
// checker must catch.

[, $client, $logFile, $seconds, $ttl, $overrun, $release] = $argv;
$keys = array_slice($argv, 7);
$overrun = (int) $overrun;
$client = (int) $client;
$ttl = (float) $ttl;
$log = fopen($logFile, 'w');

/** @param array<string, mixed> $in */
function op(string $kind, array $in, callable $call): array
{
    global $log, $client;
    $start = hrtime(true);
    try {
        $res = $call() + ['unknown' => false];
    } catch (Ephpm\KvException $e) {
        if ($e->getCode() !== Ephpm\KvException::UNAVAILABLE) {
            throw $e;
        }
        $res = ['ok' => false, 'unknown' => true];
    }
    $end = hrtime(true);
    fwrite($log, json_encode(['client' => $client, 'kind' => $kind, 'call' => $start, 'return' => $end] + $res + $in) . "\n");
    return $res;
}

// Releases until the answer is known: a token never deletes another's lock.
function giveBack(Ephpm\Lock $lock, int $end): void
{
    global $release;
    $do = $release === 'del'
        ? fn () => ['ok' => ephpm_kv_del($lock->name) === 1]
        : fn () => ['ok' => $lock->release()];
    do {
        $r = op('release', ['key' => $lock->name, 'token' => $lock->token], $do);
        if (!$r['unknown']) {
            return;
        }
        usleep(100000); // each unknown try widens the checker's search
    } while (hrtime(true) < $end + 2_000_000_000);
}

$ttlNs = (int) round($ttl * 1e9);
$end = hrtime(true) + (int) ((float) $seconds * 1e9);
for ($seq = 0; hrtime(true) < $end; $seq++) {
    $key = $keys[random_int(0, count($keys) - 1)];
    $lock = null;
    // An acquisition that threw has no token to give back: logged with an
    // empty one (unknown to the checker), so only its TTL can end it, as in
    // the store.
    $r = op('acquire', ['key' => $key, 'token' => '', 'ttl' => $ttlNs], function () use ($key, $ttl, &$lock) {
        $lock = Ephpm\Lock::acquire($key, $ttl);
        return $lock === null ? ['ok' => false] : ['ok' => true, 'fence' => $lock->fence, 'token' => $lock->token];
    });
    if ($lock === null) {
        if (!$r['unknown'] && random_int(0, 3) === 0) {
            op('get', ['key' => $key], fn () => ['value' => $v = ephpm_kv_get($key), 'ok' => $v !== null]);
        }
        usleep(random_int(1, 5000));
        continue;
    }
    op('fence', ['key' => $key, 'fence' => $lock->fence], fn () => ['ok' => ephpm_kv_fence($key, $lock->fence)]);
    if (random_int(0, 1) === 0) {
        op('owner', ['key' => $key, 'token' => $lock->token], fn () => ['ok' => $lock->isAcquired()]);
    }
    usleep(random_int(1, 100) <= $overrun ? (int) ($ttl * random_int(1_000_000, 2_000_000)) : random_int(1, 2000));
    if (random_int(0, 2) === 0) {
        op('refresh', ['key' => $key, 'token' => $lock->token, 'ttl' => $ttlNs], fn () => ['ok' => $lock->refresh()]);
    }
    giveBack($lock, $end);
}
fclose($log);
