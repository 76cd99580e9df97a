<?php
// Drives a real php-fpm (4 workers, extension in server mode) through
// FastCGI with cgi-fcgi, concurrently, and checks what the workers did to the
// one ephpm-kv server they share. Run by run.sh, which starts both.

$socket = $argv[1];
$app = __DIR__ . '/app';
$passed = $failed = 0;

function check(string $what, bool $ok, string $detail = ''): void
{
    global $passed, $failed;
    $ok ? $passed++ : $failed++;
    printf("%s %s%s\n", $ok ? 'ok  ' : 'FAIL', $what, $detail === '' ? '' : " ($detail)");
}

/** Starts one FastCGI request; returns [process, stdout pipe]. */
function start_request(string $script, array $query = [], string $cookie = ''): array
{
    global $socket, $app;
    $env = [
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

/** Waits for requests and returns their response bodies. */
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

// 1. N concurrent requests on one session cookie each increment a session
//    counter after a 50 ms pause: the session lock serializes them.
$n = 12;
$sid = 'fpmtest' . bin2hex(random_bytes(8));
$bodies = run_concurrently($n, 'session_counter.php', [], "PHPSESSID=$sid");
$pids = array_unique(array_map(fn($b) => explode(' ', $b)[1] ?? '?', $bodies));
$data = ephpm_kv_get("session:$sid");
check("session counter after $n concurrent requests is $n", $data === "n|i:$n;", "session data " . var_export($data, true));
check('the requests ran in more than one php-fpm worker', count($pids) > 1, count($pids) . ' workers: ' . implode(',', $pids));
check('no session lock left behind', !ephpm_kv_exists("session_lock:$sid"));

// 2. Lock -> read-modify-write a shared counter -> release: no lost update.
ephpm_kv_del('counter');
$n = 16;
$bodies = run_concurrently($n, 'lock_counter.php');
check("lock-protected counter after $n concurrent requests is $n", ephpm_kv_get('counter') === (string)$n,
    'counter ' . var_export(ephpm_kv_get('counter'), true) . '; ' . implode(' ', array_filter($bodies, fn($b) => !preg_match('/^\d+$/', $b))));

// 3. The seeds' scenario: one holder overruns its lease while workers queue.
//    With a plain del its release frees a worker's lock and lets another in
//    (the bug, shown so this test can fail); with del_if_eq nothing is stolen.
foreach (['del', 'del_if_eq'] as $release) {
    ephpm_kv_del('overrun:counter');
    $requests = [start_request('overrun.php', ['role' => 'overrun', 'release' => $release])];
    for ($t = 0; $t < 1000 && !ephpm_kv_exists('lock:overrun'); $t++) {
        usleep(5000); // until the overrunner holds the lock
    }
    $workers = 3;
    for ($i = 0; $i < $workers; $i++) {
        $requests[] = start_request('overrun.php', ['role' => 'worker', 'release' => $release]);
    }
    $bodies = finish($requests);
    $stolen = count(array_filter($bodies, fn($b) => $b === 'stolen'));
    $counter = (int)ephpm_kv_get('overrun:counter');
    if ($release === 'del') {
        check("release with del: the overrunner's late DEL freed a worker's lock", $stolen >= 1, "stolen $stolen, counter $counter of $workers");
    } else {
        check('release with del_if_eq: no worker lost its lock', $stolen === 0, "stolen $stolen");
        check("release with del_if_eq: no lost update among workers", $counter === $workers, "counter $counter of $workers");
    }
}

printf("fpm: %d passed, %d failed\n", $passed, $failed);
exit($failed ? 1 : 0);
