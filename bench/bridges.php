<?php
// make bench's framework figures: ns per operation through the real
// frameworks (Debian's packages under /usr/share/php), the ephpm bridges
// (php/src) next to each framework's own local stores, every contender in the
// same run:
//  1. Symfony Lock 5.4: LockFactory::createLock()->acquire() + release() with
//     EphpmStore, SemaphoreStore and FlockStore; the raw ephpm_kv_setnx +
//     ephpm_kv_del_if_eq pair as the floor of what the bridge adds.
//  2. Symfony Cache 5.4: getItem() hit, get() with a callback on a hit, save(),
//     with EphpmAdapter, ApcuAdapter and FilesystemAdapter.
//  3. Laravel 8 (an Illuminate\Cache\Repository on the store): lock()->get() +
//     release(), get() hit, put(), with EphpmStore, ApcStore (no locks) and
//     FileStore.
//  4. PSR-16: get() hit, set(), with Ephpm\Bridge\Psr\SimpleCache and
//     Symfony's Psr16Cache over ApcuAdapter.
//  5. The raw calls under them: get and set of the 100-byte value and the
//     generation read that every Symfony Cache, PSR-16 and Laravel bridge call
//     makes first.
// Values are a 100-byte string. Each sample is a fresh PHP process (php -n)
// with only the extensions its contender needs (bench/bridges_loop.php, which
// checks that each contender does the work before and after timing); the
// contenders take turns in every round, so the machine's noise hits all
// alike. ephpm is the shared engine (no ephpm settings). File stores work in
// a fresh directory under sys_get_temp_dir() (TMPDIR). Medians and ranges
// over the rounds of each sample's median of 10 batches.
//
// Usage: php -n bench/bridges.php   (after make all and build/deps.sh bridges
// bench; make bench does all of that)
// Knobs: ROUNDS (9) ITERATIONS (20000 per operation; a slow operation's batches
// are cut to ~25 ms)
require __DIR__ . '/sample.inc';

$root = dirname(__DIR__);
$rounds = (int)(getenv('ROUNDS') ?: 9);
$iterations = (int)(getenv('ITERATIONS') ?: 20_000);
$ext = "$root/build/ephpm.so";
is_file($ext) || die("bridges: $ext missing: run make all\n");
foreach (['Symfony/Component/Lock', 'Symfony/Component/Cache', 'Illuminate/Cache', 'Psr/SimpleCache'] as $pkg) {
    is_file("/usr/share/php/$pkg/autoload.php") || die("bridges: /usr/share/php/$pkg missing: run build/deps.sh bridges\n");
}

$ephpm = ['extension' => $ext];
$apcu = ['extension' => 'apcu', 'apc.enable_cli' => '1'];
// contender => ini settings (php -n: nothing else is loaded)
$contenders = [
    'raw' => $ephpm,
    'sf-lock-ephpm' => $ephpm,
    'sf-lock-semaphore' => ['extension' => 'sysvsem'],
    'sf-lock-flock' => [],
    'sf-cache-ephpm' => $ephpm,
    'sf-cache-apcu' => $apcu,
    'sf-cache-files' => [],
    'laravel-ephpm' => $ephpm,
    'laravel-apc' => $apcu,
    // FileStore's expiry goes through Carbon, which needs mbstring
    'laravel-file' => ['extension' => 'mbstring'],
    'psr16-ephpm' => $ephpm,
    'psr16-sf-apcu' => $apcu,
];

// run(contender, iterations): the decoded JSON line of one sample process.
function run(string $contender, int $iterations): array
{
    global $contenders;
    // zend.assertions=-1 as in production php.ini (Debian's too): with -n it
    // would be 1, and Symfony's assert()ed key checks would run on every call.
    $cmd = [PHP_BINARY, '-n', '-d', 'zend.assertions=-1'];
    foreach ($contenders[$contender] as $k => $v) {
        array_push($cmd, '-d', preg_replace('/\[.*\]$/', '', $k) . "=$v");
    }
    array_push($cmd, __DIR__ . '/bridges_loop.php', $contender, (string)$iterations);
    return run_sample($cmd, "bridges: $contender");
}

$t0 = hrtime(true);
$load0 = loadavg();
foreach ($contenders as $c => $_) { // warm the page cache and the autoloaders' files
    run($c, 100);
}
$s = [];
$calls = [];
for ($r = 0; $r < $rounds; $r++) {
    foreach ($contenders as $c => $_) {
        $got = run($c, $iterations);
        foreach ($got['ns'] as $op => $ns) {
            $s[$c][$op][] = $ns;
            $calls[$c][$op] = $got['calls'][$op];
        }
    }
}

// cell(contender, op): "median (min-max)", or "-" where the contender has no such op
function cell(string $c, string $op): string
{
    global $s;
    if (!isset($s[$c][$op])) {
        return '-';
    }
    $xs = $s[$c][$op];
    return sprintf('%.0f (%.0f-%.0f)', median($xs), min($xs), max($xs));
}

function m(string $c, string $op): float
{
    global $s;
    return median($s[$c][$op]);
}

// table(title, [op => column label], [row label => contender, or [op => [contender, op]]]):
// a contender's row shows its own ops; the other form puts another
// contender's op in a column (the raw floor under a bridge's lock pair).
function table(string $title, array $ops, array $rows): void
{
    echo "$title\n";
    $w = array_map(fn ($label) => max(24, strlen($label)), $ops);
    printf("  %-34s", 'contender');
    foreach ($ops as $op => $label) {
        printf(" %-{$w[$op]}s", $label);
    }
    echo "\n";
    foreach ($rows as $label => $cells) {
        printf("  %-34s", $label);
        foreach ($ops as $op => $_) {
            $cell = is_string($cells) ? [$cells, $op] : ($cells[$op] ?? null);
            printf(" %-{$w[$op]}s", $cell === null ? '-' : cell(...$cell));
        }
        echo "\n";
    }
}

printf("Framework bridges (PHP %s; php -n -d zend.assertions=-1 and each contender's extensions, no opcache):\n"
    . "%d rounds, contenders interleaved, ns per operation, median (min-max) over rounds of each sample's median of\n"
    . "10 batches (%d calls per operation and sample, fewer for slow ones: below); value: a 100-byte string;\n"
    . "ephpm: the shared engine, default settings; file stores in %s\nload average %s at start, %s at end\n\n",
    PHP_VERSION, $rounds, $iterations, sys_get_temp_dir(), $load0, loadavg());

table("Symfony Lock 5.4: LockFactory::createLock()->acquire() + release() (default TTL 300 s, so acquire() is\n"
    . "save() + refresh()); floor: the raw pair under EphpmStore", ['pair' => 'ns per pair'], [
    'EphpmStore' => 'sf-lock-ephpm',
    'SemaphoreStore' => 'sf-lock-semaphore',
    'FlockStore' => 'sf-lock-flock',
    'floor: ephpm_kv_setnx + del_if_eq' => ['pair' => ['raw', 'setnx+del_if_eq']],
]);
echo "\n";

table('Symfony Cache 5.4: ns per call', ['getItem hit' => 'getItem() hit', 'get() hit' => 'get(key, callback) hit',
    'save' => 'save(item)'], [
    'EphpmAdapter' => 'sf-cache-ephpm',
    'ApcuAdapter' => 'sf-cache-apcu',
    'FilesystemAdapter' => 'sf-cache-files',
    'raw ephpm_kv_get / set' => ['getItem hit' => ['raw', 'get'], 'save' => ['raw', 'set']],
]);
echo "\n";

table("Laravel 8 (Illuminate\\Cache\\Repository on the store): ns per call", [
    'lock pair' => "lock('x', 10)->get()+release()", 'get hit' => 'get() hit', 'put' => 'put(k, v, 600)'], [
    'EphpmStore' => 'laravel-ephpm',
    'ApcStore (no locks)' => 'laravel-apc',
    'FileStore' => 'laravel-file',
    'raw setnx + del_if_eq / get / set' => ['lock pair' => ['raw', 'setnx+del_if_eq'], 'get hit' => ['raw', 'get'],
        'put' => ['raw', 'set']],
]);
echo "\n";

table('PSR-16: ns per call', ['get hit' => 'get() hit', 'set' => 'set()'], [
    'Ephpm\Bridge\Psr\SimpleCache' => 'psr16-ephpm',
    'Psr16Cache(ApcuAdapter)' => 'psr16-sf-apcu',
    'raw ephpm_kv_get / set' => ['get hit' => ['raw', 'get'], 'set' => ['raw', 'set']],
]);
echo "\n";

table('Raw ephpm_kv_* calls under the bridges (shared engine): ns per call', [
    'get' => 'get 100 B', 'set' => 'set 100 B', 'gen read, absent' => 'get gen key (absent)',
    'gen read, present' => 'get gen key (present)'], ['ephpm_kv_*' => 'raw']);
$absent = m('raw', 'gen read, absent');
$present = m('raw', 'gen read, present');
printf("Generation read (one ephpm_kv_get before every cache-bridge call): %.0f ns while the key is absent (never\n"
    . "cleared), %.0f ns once a clear() made it; share of a hit (absent / present):\n", $absent, $present);
foreach (['sf-cache-ephpm' => ['getItem hit', 'Symfony Cache getItem() hit'], 'psr16-ephpm' => ['get hit', 'PSR-16 get() hit'],
    'laravel-ephpm' => ['get hit', 'Laravel get() hit']] as $c => [$op, $label]) {
    $hit = m($c, $op);
    printf("  %-28s %5.0f ns: %2.0f%% / %2.0f%%\n", $label, $hit, 100 * $absent / $hit, 100 * $present / $hit);
}
$fewer = [];
foreach ($calls as $c => $ops) {
    foreach ($ops as $op => $k) {
        if ($k < $iterations) {
            $fewer[] = "$c $op $k";
        }
    }
}
if ($fewer) {
    echo "\ncalls timed per sample where fewer (batches cut to ~25 ms): ", implode(', ', $fewer), "\n";
}
printf("%.0f s in all\n", (hrtime(true) - $t0) / 1e9);
