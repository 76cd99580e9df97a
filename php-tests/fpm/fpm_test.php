<?php
// Drives a real php-fpm (4 workers) through FastCGI with cgi-fcgi,
// concurrently, and checks through the workers themselves (app/state.php)
// what they did to the store they share. Run by run.sh, which starts php-fpm.
// Usage: fpm_test.php SOCKET MODE [SHM_NAME]
//   server  the workers share an ephpm-kv server (ephpm.server)
//   shm     no ephpm settings at all: the shared segment of the fpm master
//   map     ephpm.shm_size=0: each worker its own store, so the session and
//           lock counters must come out short (the bug the segment fixes)
//   named   the pool and CLI processes share the segment SHM_NAME
//   sized   a pool with php_admin_value[ephpm.shm_size]: refused

[, $socket, $mode] = $argv;
$shmName = $argv[3] ?? '';
$app = __DIR__ . '/app';
$passed = $failed = 0;

function check(string $what, bool $ok, string $detail = ''): void
{
    global $passed, $failed, $mode;
    $ok ? $passed++ : $failed++;
    printf("%s [%s] %s%s\n", $ok ? 'ok  ' : 'FAIL', $mode, $what, $detail === '' ? '' : " ($detail)");
}

/** Starts one FastCGI request; returns [process, stdout pipe, stderr pipe]. */
function start_request(string $script, array $query = [], string $cookie = '', array $params = []): array
{
    global $socket, $app;
    $env = $params + [
        'SCRIPT_FILENAME' => "$app/$script",
        'SCRIPT_NAME' => "/$script",
        'REQUEST_METHOD' => 'GET',
        'QUERY_STRING' => http_build_query($query),
        'HTTP_COOKIE' => $cookie,
        'PATH' => getenv('PATH'),
    ];
    $proc = proc_open(['cgi-fcgi', '-bind', '-connect', $socket], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env);
    return [$proc, $pipes[1], $pipes[2]];
}

/** Waits for requests (or other processes) and returns their response bodies. */
function finish(array $requests): array
{
    $bodies = [];
    foreach ($requests as [$proc, $out, $err]) {
        $response = stream_get_contents($out) . stream_get_contents($err);
        proc_close($proc);
        $parts = preg_split("/\r?\n\r?\n/", $response, 2);
        $bodies[] = trim($parts[1] ?? $response);
    }
    return $bodies;
}

function run_concurrently(int $n, string $script, array $query = [], string $cookie = ''): array
{
    $requests = [];
    for ($i = 0; $i < $n; $i++) {
        $requests[] = start_request($script, $query, $cookie);
    }
    return finish($requests);
}

/** One worker's view: ['pid' =>, 'engine' =>, 'value' => the key's value]. */
function state(string $key = ''): array
{
    $body = finish([start_request('state.php', ['key' => $key])])[0];
    return json_decode($body, true) ?? throw new RuntimeException("state.php answered: $body");
}

if ($mode === 'sized') {
    // The pool's php_admin_value[ephpm.shm_size] is not the size the master
    // mapped: every worker refuses, saying where to set it.
    $bodies = run_concurrently(4, 'first_use.php');
    check('a pool with its own ephpm.shm_size: first use is CONFIG, naming php.ini',
        count(array_filter($bodies, fn($b) => str_starts_with($b, '9 ') && str_contains($b, 'php.ini'))) === 4, implode(' | ', $bodies));
    printf("fpm %s: %d passed, %d failed\n", $mode, $passed, $failed);
    exit($failed ? 1 : 0);
}

$engine = ['server' => 'server', 'shm' => 'shm', 'named' => 'shm', 'map' => 'map'][$mode];
$st = state();
check("the workers run the $engine engine", $st['engine'] === $engine, "stats engine '{$st['engine']}'");
$shared = $mode !== 'map';

/** A CLI process on the named segment; returns what finish() takes. */
function start_cli(string ...$args): array
{
    global $shmName;
    // EPHPM_FPM_CLI_AS=user:group: as the pool's workers run (run.sh, as root)
    $as = getenv('EPHPM_FPM_CLI_AS');
    $prefix = $as ? ['setpriv', '--reuid=' . explode(':', $as)[0], '--regid=' . explode(':', $as)[1], '--clear-groups'] : [];
    $p = proc_open([...$prefix, PHP_BINARY, '-n', '-d', 'extension=' . dirname(__DIR__, 2) . '/build/ephpm.so',
        '-d', "ephpm.shm_name=$shmName", ...$args], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    return [$p, $pipes[1], $pipes[2]];
}

if ($mode === 'named') {
    // 4. The pool and two CLI processes contend on one lock-protected counter
    //    in the named segment: every increment counts, wherever it ran. The
    //    same without the lock comes out short: they really interleave.
    foreach (['unlocked', 'locked'] as $how) {
        $procs = [start_cli(__DIR__ . '/cli_counter.php', '8', $how), start_cli(__DIR__ . '/cli_counter.php', '8', $how)];
        $requests = [];
        for ($i = 0; $i < 16; $i++) {
            $requests[] = start_request('lock_counter.php', ['lock' => $how === 'locked' ? '1' : '0']);
        }
        $cliOut = finish($procs);
        $bodies = finish($requests);
        $key = $how === 'locked' ? 'counter' : 'counter:unlocked';
        $counter = state($key)['value'];
        $detail = 'counter ' . var_export($counter, true) . '; CLI: ' . implode(' | ', $cliOut)
            . '; ' . implode(' ', array_filter($bodies, fn($b) => !preg_match('/^\d+$/', $b)));
        if ($how === 'unlocked') {
            check('16 requests and 2 CLI processes x 8, read-modify-write without the lock: short of 32', (int)$counter < 32, $detail);
            continue;
        }
        check('16 requests and 2 CLI processes x 8 on the lock-protected counter: 32', $counter === '32', $detail);
        check('the CLI processes ran the shm engine', count(array_filter($cliOut, fn($o) => str_starts_with($o, 'shm '))) === 2,
            implode(' | ', $cliOut));
        [$read] = finish([start_cli('-r', 'echo ephpm_kv_get("counter");')]);
        check('a later CLI process reads the same counter', $read === '32', 'read ' . var_export($read, true));
    }
    printf("fpm %s: %d passed, %d failed\n", $mode, $passed, $failed);
    exit($failed ? 1 : 0);
}

// 1. N concurrent requests on one session cookie each increment a session
//    counter after a 50 ms pause: the session lock serializes them.
$n = 12;
$sid = 'fpmtest' . bin2hex(random_bytes(8));
$bodies = run_concurrently($n, 'session_counter.php', [], "PHPSESSID=$sid");
$pids = array_unique(array_map(fn($b) => explode(' ', $b)[1] ?? '?', $bodies));
check('the requests ran in more than one php-fpm worker', count($pids) > 1, count($pids) . ' workers: ' . implode(',', $pids));
$data = state("session:$sid")['value'];
if ($shared) {
    check("session counter after $n concurrent requests is $n", $data === "n|i:$n;", 'session data ' . var_export($data, true));
    check('no session lock left behind', state("session_lock:$sid")['value'] === null);
} else {
    // each worker counted only the requests it served itself
    check("session counter after $n concurrent requests is short of $n: the workers do not share", $data !== "n|i:$n;",
        'session data ' . var_export($data, true));
}

// 2. Lock -> read-modify-write a shared counter -> release: no lost update.
$n = 16;
$bodies = run_concurrently($n, 'lock_counter.php');
$counter = state('counter')['value'];
$detail = 'counter ' . var_export($counter, true) . '; ' . implode(' ', array_filter($bodies, fn($b) => !preg_match('/^\d+$/', $b)));
if ($shared) {
    check("lock-protected counter after $n concurrent requests is $n", $counter === (string)$n, $detail);
} else {
    check("lock-protected counter after $n concurrent requests is short of $n: each worker its own lock", (int)$counter < $n, $detail);
    printf("fpm %s: %d passed, %d failed\n", $mode, $passed, $failed);
    exit($failed ? 1 : 0);
}

// 3. The seeds' scenario: one holder overruns its lease while workers queue.
//    With a plain del its release frees a worker's lock and lets another in
//    (the bug, shown so this test can fail); with del_if_eq nothing is stolen.
foreach (['del', 'del_if_eq'] as $release) {
    $requests = [start_request('overrun.php', ['role' => 'overrun', 'release' => $release])];
    for ($t = 0; $t < 1000 && state('lock:overrun')['value'] === null; $t++) {
        usleep(5000); // until the overrunner holds the lock
    }
    $workers = 3;
    for ($i = 0; $i < $workers; $i++) {
        $requests[] = start_request('overrun.php', ['role' => 'worker', 'release' => $release]);
    }
    $bodies = finish($requests);
    $stolen = count(array_filter($bodies, fn($b) => $b === 'stolen'));
    $counter = (int)state("overrun:counter:$release")['value'];
    if ($release === 'del') {
        check("release with del: the overrunner's late DEL freed a worker's lock", $stolen >= 1, "stolen $stolen, counter $counter of $workers");
    } else {
        check('release with del_if_eq: no worker lost its lock', $stolen === 0, "stolen $stolen");
        check('release with del_if_eq: no lost update among workers', $counter === $workers, "counter $counter of $workers");
    }
}

// 4. Settings changed after a worker started its engine (a FastCGI
//    PHP_ADMIN_VALUE, which php-fpm also keeps for the worker's later
//    requests) change nothing: stats() names the engine that runs. Last,
//    since the workers keep the setting.
$started = run_concurrently(4, 'first_use.php', ['hold' => 1]);
$requests = [];
for ($i = 0; $i < 4; $i++) {
    $requests[] = start_request('first_use.php', ['hold' => 1], '', ['PHP_ADMIN_VALUE' => 'ephpm.shm_size=0']);
}
$bodies = finish($requests);
check("stats()['engine'] names the running engine after ephpm.shm_size changed in every worker",
    count(array_filter($bodies, fn($b) => $b === "ok $engine")) === 4, implode(' | ', [...$started, ...$bodies]));

printf("fpm %s: %d passed, %d failed\n", $mode, $passed, $failed);
exit($failed ? 1 : 0);
