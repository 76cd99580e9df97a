<?php
// One contender's timed loops for bench/bridges.php, which starts this script
// in a fresh PHP process per sample with only that contender's extension.
// Usage: bridges_loop.php CONTENDER ITERATIONS
// Prints {"ns": {"op": ns per call, ...}, "calls": {"op": calls timed, ...}},
// each ns the median of 10 timed batches.
//
// Every contender is first checked to do the work its row claims (a lock is
// held between acquire and release and refuses a second holder; a saved value
// is read back by a fresh instance; an absent key misses), and every timed
// batch is checked afterwards (each acquire succeeded, each hit returned the
// stored value, a write batch's own value is read back by a fresh instance):
// a contender that silently does nothing fails the bench.
declare(strict_types=1);

[$contender, $iterations] = array_slice($argv, 1, 2) + [null, null];
$n = (int)$iterations;
$n >= 10 || fail("usage: bridges_loop.php CONTENDER ITERATIONS (>= 10)");

const VALUE_KEY = 'bench.value';
const LOCK = 'bench-lock';
$value = str_repeat('v', 100);

function fail(string $msg): never
{
    global $contender;
    fwrite(STDERR, "bridges_loop $contender: $msg\n");
    exit(1);
}

function need(bool $ok, string $what): void
{
    $ok || fail("check failed: $what");
}

// A scratch directory of this process (FlockStore, FilesystemAdapter,
// FileStore), removed at exit.
function scratch(): string
{
    static $dir = null;
    if ($dir === null) {
        $dir = sys_get_temp_dir() . '/ephpm-bridges-bench-' . getmypid() . '-' . bin2hex(random_bytes(4));
        mkdir($dir, 0700) || fail("cannot create $dir");
        register_shutdown_function(static function () use ($dir): void {
            exec('rm -rf ' . escapeshellarg($dir));
        });
    }
    return $dir;
}

function load(string ...$autoloads): void
{
    foreach ($autoloads as $a) {
        require_once $a === 'bridge' ? dirname(__DIR__) . '/php/autoload.php' : "/usr/share/php/$a/autoload.php";
    }
}

function ephpm_engine(): void
{
    extension_loaded('ephpm') || fail('the ephpm extension is not loaded');
    $engine = ephpm_kv_stats()['engine'] ?? '(none)';
    $engine === 'shm' || fail("ephpm_kv_stats()['engine'] is '$engine', the rows measure the shared engine (shm)");
}

// Each op is [fn, expect, ...]: fn($k) runs $k calls and returns
//   'count'    how many succeeded (acquired, or returned true): must be $k
//   'value'    what the last call returned: must be the stored value
//   'exactly'  the same, which must be the third element
//   'stored'   fn($k, $v) writes $v $k times and returns how many succeeded;
//              then the third element, a fresh instance's read, must give $v

/** Symfony Lock: createLock()->acquire() + release() on one store. */
function symfony_lock(Symfony\Component\Lock\PersistingStoreInterface $store): array
{
    $factory = new Symfony\Component\Lock\LockFactory($store);
    $a = $factory->createLock(LOCK);
    $b = $factory->createLock(LOCK);
    need($a->acquire() === true, 'first acquire');
    need($a->isAcquired(), 'isAcquired() after acquire');
    need($b->acquire() === false, 'a second lock on the same resource is refused while the first is held');
    $a->release();
    need($b->acquire() === true, 'the second lock acquires once the first released');
    $b->release();
    need($factory->createLock(LOCK)->acquire() === true, 'free again after release');
    // (that lock is released by its destructor: autoRelease)
    return ['pair' => [static function (int $k) use ($factory): int {
        $got = 0;
        for ($i = 0; $i < $k; $i++) {
            $lock = $factory->createLock(LOCK);
            $got += (int)$lock->acquire();
            $lock->release();
        }
        return $got;
    }, 'count']];
}

/** Symfony Cache: getItem() hit, get() with a callback on a hit, save(). */
function symfony_cache(Closure $make, string $value): array
{
    $cache = $make();
    need($cache->getItem('bench.absent')->isHit() === false, 'an absent key misses');
    $item = $cache->getItem(VALUE_KEY)->set($value);
    need($cache->save($item), 'save()');
    $fresh = $make()->getItem(VALUE_KEY);
    need($fresh->isHit() && $fresh->get() === $value, 'a fresh pool instance reads the saved value');
    $computed = 0;
    $callback = static function () use (&$computed): string {
        $computed++;
        return 'computed';
    };
    return [
        'getItem hit' => [static function (int $k) use ($cache): mixed {
            $v = null;
            for ($i = 0; $i < $k; $i++) {
                $it = $cache->getItem(VALUE_KEY);
                $v = $it->isHit() ? $it->get() : null;
            }
            return $v;
        }, 'value'],
        'get() hit' => [static function (int $k) use ($cache, $callback, &$computed): mixed {
            $v = null;
            for ($i = 0; $i < $k; $i++) {
                $v = $cache->get(VALUE_KEY, $callback);
            }
            return $computed === 0 ? $v : "callback called $computed times";
        }, 'value'],
        'save' => [static function (int $k, string $v) use ($cache, $item): int {
            $item->set($v);
            $ok = 0;
            for ($i = 0; $i < $k; $i++) {
                $ok += (int)$cache->save($item);
            }
            return $ok;
        }, 'stored', static function () use ($make): mixed {
            $it = $make()->getItem(VALUE_KEY);
            return $it->isHit() ? $it->get() : null;
        }],
    ];
}

/** Laravel: Repository::get() hit, put(), and lock()->get() + release() where the store has locks. */
function laravel(Illuminate\Cache\Repository $repo, Closure $fresh, string $value, bool $locks): array
{
    need($repo->get('bench.absent') === null, 'an absent key misses');
    need($repo->put(VALUE_KEY, $value, 600) === true, 'put()');
    need($fresh()->get(VALUE_KEY) === $value, 'a fresh store instance reads the put value');
    $ops = [
        'get hit' => [static function (int $k) use ($repo): mixed {
            $v = null;
            for ($i = 0; $i < $k; $i++) {
                $v = $repo->get(VALUE_KEY);
            }
            return $v;
        }, 'value'],
        'put' => [static function (int $k, string $v) use ($repo): int {
            $ok = 0;
            for ($i = 0; $i < $k; $i++) {
                $ok += (int)$repo->put(VALUE_KEY, $v, 600);
            }
            return $ok;
        }, 'stored', static fn () => $fresh()->get(VALUE_KEY)],
    ];
    if ($locks) {
        $a = $repo->lock(LOCK, 10);
        $b = $repo->lock(LOCK, 10);
        need($a->get() === true, 'first lock get()');
        need($b->get() === false, 'a second lock is refused while the first is held');
        need($b->release() === false, "releasing a lock one does not hold is refused");
        need($a->release() === true, 'release()');
        need($b->get() === true && $b->release() === true, 'the second lock acquires once the first released');
        $ops = ['lock pair' => [static function (int $k) use ($repo): int {
            $got = 0;
            for ($i = 0; $i < $k; $i++) {
                $lock = $repo->lock(LOCK, 10);
                $got += (int)$lock->get();
                $lock->release();
            }
            return $got;
        }, 'count']] + $ops;
    }
    return $ops;
}

/** PSR-16: get() hit, set(). */
function psr16(Psr\SimpleCache\CacheInterface $cache, Closure $fresh, string $value): array
{
    need($cache->get('bench.absent', 'dflt') === 'dflt', 'an absent key gives the default');
    need($cache->set(VALUE_KEY, $value), 'set()');
    need($fresh()->get(VALUE_KEY) === $value, 'a fresh cache instance reads the set value');
    return [
        'get hit' => [static function (int $k) use ($cache): mixed {
            $v = null;
            for ($i = 0; $i < $k; $i++) {
                $v = $cache->get(VALUE_KEY);
            }
            return $v;
        }, 'value'],
        'set' => [static function (int $k, string $v) use ($cache): int {
            $ok = 0;
            for ($i = 0; $i < $k; $i++) {
                $ok += (int)$cache->set(VALUE_KEY, $v);
            }
            return $ok;
        }, 'stored', static fn () => $fresh()->get(VALUE_KEY)],
    ];
}

/**
 * The raw calls under the bridges: the lock pair (the floor of what the lock
 * bridges add), a get and a set of the 100-byte value, and the generation
 * read every cache-bridge call makes first (its key absent until the first
 * clear(), present after).
 */
function raw(string $value): array
{
    ephpm_engine();
    $t = bin2hex(random_bytes(16));
    need(ephpm_kv_setnx(LOCK, $t, 300) && !ephpm_kv_setnx(LOCK, "$t-other", 300) && ephpm_kv_get(LOCK) === $t
        && !ephpm_kv_del_if_eq(LOCK, "$t-other") && ephpm_kv_del_if_eq(LOCK, $t) && ephpm_kv_get(LOCK) === null,
        'setnx holds the key against a second token, del_if_eq releases only its own');
    need(ephpm_kv_set(VALUE_KEY, $value) && ephpm_kv_get(VALUE_KEY) === $value, 'set then get');
    need(ephpm_kv_get('bench:gen:absent') === null, 'the absent generation key is absent');
    ephpm_kv_incr('bench:gen:present');
    need(ephpm_kv_get('bench:gen:present') === '1', 'the present generation key holds 1');
    $get = static function (string $key, string|null $want): array {
        return [static function (int $k) use ($key): mixed {
            $v = false;
            for ($i = 0; $i < $k; $i++) {
                $v = ephpm_kv_get($key);
            }
            return $v;
        }, 'exactly', $want];
    };
    return [
        'setnx+del_if_eq' => [static function (int $k) use ($t): int {
            $got = 0;
            for ($i = 0; $i < $k; $i++) {
                $got += (int)ephpm_kv_setnx(LOCK, $t, 300);
                ephpm_kv_del_if_eq(LOCK, $t);
            }
            return $got;
        }, 'count'],
        'get' => $get(VALUE_KEY, $value),
        'gen read, absent' => $get('bench:gen:absent', null),
        'gen read, present' => $get('bench:gen:present', '1'),
        'set' => [static function (int $k, string $v): int {
            $ok = 0;
            for ($i = 0; $i < $k; $i++) {
                $ok += (int)ephpm_kv_set(VALUE_KEY, $v);
            }
            return $ok;
        }, 'stored', static fn () => ephpm_kv_get(VALUE_KEY)],
    ];
}

$ops = match ($contender) {
    'raw' => raw($value),
    'sf-lock-ephpm' => (function () {
        load('Symfony/Component/Lock', 'bridge');
        ephpm_engine();
        return symfony_lock(new Ephpm\Bridge\Symfony\EphpmStore());
    })(),
    'sf-lock-semaphore' => (function () {
        load('Symfony/Component/Lock');
        extension_loaded('sysvsem') || fail('sysvsem is not loaded');
        return symfony_lock(new Symfony\Component\Lock\Store\SemaphoreStore());
    })(),
    'sf-lock-flock' => (function () {
        load('Symfony/Component/Lock');
        return symfony_lock(new Symfony\Component\Lock\Store\FlockStore(scratch()));
    })(),
    'sf-cache-ephpm' => (function () use ($value) {
        load('Symfony/Component/Cache', 'bridge');
        ephpm_engine();
        return symfony_cache(static fn () => new Ephpm\Bridge\Symfony\EphpmAdapter('bench'), $value);
    })(),
    'sf-cache-apcu' => (function () use ($value) {
        load('Symfony/Component/Cache');
        return symfony_cache(static fn () => new Symfony\Component\Cache\Adapter\ApcuAdapter('bench'), $value);
    })(),
    'sf-cache-files' => (function () use ($value) {
        load('Symfony/Component/Cache');
        return symfony_cache(static fn () => new Symfony\Component\Cache\Adapter\FilesystemAdapter('bench', 0, scratch()), $value);
    })(),
    'laravel-ephpm' => (function () use ($value) {
        load('Illuminate/Cache', 'bridge');
        ephpm_engine();
        $make = static fn () => new Illuminate\Cache\Repository(new Ephpm\Bridge\Laravel\EphpmStore('bench'));
        return laravel($make(), $make, $value, true);
    })(),
    'laravel-apc' => (function () use ($value) {
        load('Illuminate/Cache');
        $make = static fn () => new Illuminate\Cache\Repository(new Illuminate\Cache\ApcStore(new Illuminate\Cache\ApcWrapper(), 'bench'));
        need(!($make()->getStore() instanceof Illuminate\Contracts\Cache\LockProvider), 'ApcStore has no locks (no lock row)');
        return laravel($make(), $make, $value, false);
    })(),
    'laravel-file' => (function () use ($value) {
        load('Illuminate/Cache');
        $make = static fn () => new Illuminate\Cache\Repository(new Illuminate\Cache\FileStore(new Illuminate\Filesystem\Filesystem(), scratch()));
        return laravel($make(), $make, $value, true);
    })(),
    'psr16-ephpm' => (function () use ($value) {
        load('Psr/SimpleCache', 'bridge');
        ephpm_engine();
        $make = static fn () => new Ephpm\Bridge\Psr\SimpleCache('bench');
        return psr16($make(), $make, $value);
    })(),
    'psr16-sf-apcu' => (function () use ($value) {
        load('Psr/SimpleCache', 'Symfony/Component/Cache');
        $make = static fn () => new Symfony\Component\Cache\Psr16Cache(new Symfony\Component\Cache\Adapter\ApcuAdapter('bench'));
        return psr16($make(), $make, $value);
    })(),
    default => fail("unknown contender '$contender'"),
};

// batched(fn, n): ns per call of fn(per) timed BATCHES times, the median
// batch (a batch the scheduler preempted does not move it); every batch's
// result checked. per is n / BATCHES, fewer for a slow op so that a batch
// takes about BATCH_NS (a file save is ~1000x a shared-memory get).
const BATCHES = 10;
const BATCH_NS = 25_000_000;
function batched(string $op, array $spec, int $n, string $value): array
{
    [$fn, $expect] = $spec;
    $written = 0;
    // one timed call of fn: [ns, what it returned], then the check of it
    $call = static function (int $k) use ($op, $fn, $expect, $spec, $value, &$written): float {
        // a write op writes a value of its own per batch, read back after it
        $v = substr($value, 0, -8) . sprintf('%08d', ++$written);
        $start = hrtime(true);
        $got = $expect === 'stored' ? $fn($k, $v) : $fn($k);
        $ns = hrtime(true) - $start;
        [$ok, $want] = match ($expect) {
            'count' => [$got === $k, "$k successes"],
            'value' => [$got === $value, var_export($value, true)],
            'exactly' => [$got === $spec[2], var_export($spec[2], true)],
            'stored' => [$got === $k && ($back = $spec[2]()) === $v,
                "$k successes and then " . var_export($v, true) . ' read back, got ' . var_export($back ?? null, true)],
        };
        $ok || fail("$op: a batch of $k returned " . var_export($got, true) . " (expected $want)");
        return $ns;
    };
    $per = intdiv($n, BATCHES);
    $warm = max(1, min(intdiv($per, 4), 200));
    $per = max(1, min($per, intdiv(BATCH_NS * $warm, max(1, (int)$call($warm)))));
    $call($per); // warm at the batch size
    $ns = [];
    for ($b = 0; $b < BATCHES; $b++) {
        $ns[] = $call($per) / $per;
    }
    sort($ns);
    return [($ns[BATCHES / 2 - 1] + $ns[BATCHES / 2]) / 2, $per * BATCHES];
}

$out = [];
foreach ($ops as $op => $spec) {
    [$out['ns'][$op], $out['calls'][$op]] = batched($op, $spec, $n, $value);
}
echo json_encode($out), "\n";
