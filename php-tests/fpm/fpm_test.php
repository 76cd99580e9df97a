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
    if ($ok && strlen($detail) > 120) { // a long detail only where it explains a failure
        $detail = '';
    }
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

/** One request's CGI response: [HTTP status, headers by lowercase name, body]. */
function fetch(string $script, array $query = [], array $params = []): array
{
    [$proc, $out, $err] = start_request($script, $query, '', $params);
    $response = stream_get_contents($out);
    $errors = stream_get_contents($err);
    proc_close($proc);
    [$head, $body] = array_pad(preg_split("/\r?\n\r?\n/", $response, 2), 2, '');
    $status = 200;
    $headers = [];
    foreach (preg_split("/\r?\n/", $head) as $line) {
        if (str_contains($line, ':')) {
            [$name, $value] = array_map('trim', explode(':', $line, 2));
            $headers[strtolower($name)] = $value;
            if (strtolower($name) === 'status') {
                $status = (int)$value;
            }
        }
    }
    return [$status, $headers, $body . $errors];
}

/** php/status.php through a worker, from 127.0.0.1 unless $params say otherwise. */
function status_page(array $query = [], array $params = []): array
{
    $page = dirname(__DIR__, 2) . '/php/status.php';
    return fetch('status.php', $query, $params + ['SCRIPT_FILENAME' => $page, 'REMOTE_ADDR' => '127.0.0.1']);
}

/**
 * Prometheus's text exposition format, line by line: name => ['help' =>,
 * 'type' =>, 'value' =>]; what does not follow the format goes to $errors.
 */
function parse_prometheus(string $text, array &$errors): array
{
    $metrics = [];
    $name = '[a-zA-Z_:][a-zA-Z0-9_:]*';
    foreach (explode("\n", rtrim($text, "\n")) as $i => $line) {
        $at = 'line ' . ($i + 1);
        if ($line === '') {
            continue;
        }
        if (preg_match("/^# (HELP|TYPE) ($name) (.*)$/", $line, $m)) {
            $field = strtolower($m[1]);
            if (isset($metrics[$m[2]][$field])) {
                $errors[] = "$at: a second $m[1] for $m[2]";
            }
            if ($field === 'type' && !in_array($m[3], ['counter', 'gauge', 'histogram', 'summary', 'untyped'], true)) {
                $errors[] = "$at: no such type '$m[3]'";
            }
            if ($field === 'type' && isset($metrics[$m[2]]['value'])) {
                $errors[] = "$at: the TYPE of $m[2] after its sample";
            }
            $metrics[$m[2]][$field] = $m[3];
        } elseif ($line[0] === '#') {
            continue; // a comment
        } elseif (preg_match("/^($name)(\\{[^}]*\\})? (\\S+)( -?\\d+)?$/", $line, $m)) {
            if (!is_numeric($m[3]) && !in_array($m[3], ['NaN', '+Inf', '-Inf'], true)) {
                $errors[] = "$at: the value '$m[3]' is not a number";
            }
            if (isset($metrics[$m[1]]['value'])) {
                $errors[] = "$at: $m[1] twice";
            }
            $metrics[$m[1]]['value'] = $m[3];
        } else {
            $errors[] = "$at: does not parse: $line";
        }
    }
    return $metrics;
}

/** The rows of the status page's table $id. */
function status_table(string $html, string $id): string
{
    return preg_match('#<table id="' . $id . '">(.*?)</table>#s', $html, $m) ? $m[1] : '';
}

/**
 * 5. php/status.php, as deployed in the pool: off until protected, then
 *    behind basic auth or an allow-list; a lock, a permit and a read lock
 *    that one request holds are rows of the page another worker serves
 *    (in map mode: not, and the page says why); ?format=prometheus parses,
 *    and passes promtool where it is installed; in the shm run, headless
 *    Chromium renders it through a web server with the lock rows.
 */
function status_checks(): void
{
    global $mode;
    $shared = $mode !== 'map';
    [$code, , $body] = status_page();
    check('status page: 403 while neither a password nor an allow-list is set, saying how to set them',
        $code === 403 && str_contains($body, 'EPHPM_STATUS_PASSWORD') && str_contains($body, 'EPHPM_STATUS_ALLOW')
        && !str_contains($body, '<table'), "$code: " . trim($body));
    $password = 'pw-' . bin2hex(random_bytes(6));
    $basic = fn (string $user, string $pw): array => ['EPHPM_STATUS_PASSWORD' => $password,
        'HTTP_AUTHORIZATION' => 'Basic ' . base64_encode("$user:$pw")];
    [$code, $headers, $body] = status_page([], ['EPHPM_STATUS_PASSWORD' => $password]);
    check('status page with a password, no credentials: 401 with a Basic challenge',
        $code === 401 && str_starts_with($headers['www-authenticate'] ?? '', 'Basic realm=') && !str_contains($body, '<table'), "$code: " . trim($body));
    [$code, , $body] = status_page([], $basic('ephpm', $password . 'x'));
    check('status page, a wrong password: 401', $code === 401 && !str_contains($body, '<table'), "$code");
    [$code, , $body] = status_page([], $basic('admin', $password));
    check('status page, a wrong user: 401', $code === 401, "$code");
    [$code, , $body] = status_page([], ['EPHPM_STATUS_ALLOW' => '10.0.0.0/8, 2001:db8::/32', 'REMOTE_ADDR' => '192.0.2.7']);
    check('status page, an address outside the allow-list: 403 naming it', $code === 403 && str_contains($body, '192.0.2.7'), "$code: " . trim($body));
    [$code, , $body] = status_page([], ['EPHPM_STATUS_ALLOW' => '10.0.0.0/8, 2001:db8::/32', 'REMOTE_ADDR' => '2001:db8::5']);
    check('status page, an address inside the allow-list: served', $code === 200 && str_contains($body, '<table id="store">'), "$code");

    $tag = bin2hex(random_bytes(4));
    $lock = "status:lock:<b>é\x01$tag";
    $release = "status:release:$tag";
    $holder = start_request('hold.php', ['lock' => $lock, 'sem' => "status:sem:$tag", 'rw' => "status:rw:$tag",
        'until' => $release, 'hold' => $shared ? 60 : 1]);
    if ($shared) {
        for ($t = 0; $t < 500 && state($lock)['value'] === null; $t++) {
            usleep(10000); // until the holder holds it
        }
    } else {
        usleep(300000);
    }
    $auth = $basic('ephpm', $password);
    [$code, $headers, $html] = status_page(['prefix' => 'status:'], $auth);
    $pagePid = preg_match('#<th>Served by</th><td>pid (\d+)#', $html, $m) ? $m[1] : '?';
    check('status page with the right user and password: 200, HTML, no caching',
        $code === 200 && str_starts_with($headers['content-type'] ?? '', 'text/html') && ($headers['cache-control'] ?? '') === 'no-store',
        "$code " . json_encode($headers));
    $lockRow = "<tr class=\"lock\"><td><code>status:lock:&lt;b&gt;é\\x01$tag</code></td>";
    $pageFence = preg_match('#' . preg_quote($lockRow, '#') . '<td class="num fence">(\d+)</td>#', status_table($html, 'locks'), $m) ? $m[1] : '?';
    $pageErrors = preg_match_all('#<p class="err">(.*?)</p>#s', $html, $m) ? ' the page says: ' . implode(' | ', $m[1]) : '';
    if ($shared) {
        check('the lock another worker holds is a row of the locks table, its key escaped (<b> as text, \x01 spelled out)',
            str_contains(status_table($html, 'locks'), $lockRow), status_table($html, 'locks') . $pageErrors);
        $leases = status_table($html, 'leases');
        check('its semaphore and read lock are rows of the leases table, 1 holder each',
            str_contains($leases, "<code>status:sem:$tag</code></td><td class=\"num\">1</td>")
            && str_contains($leases, "<code>status:rw:$tag</code></td><td class=\"num\">1</td>"), $leases);
        check('the keys table lists the lock as a value', str_contains(status_table($html, 'keys'),
            "<code>status:lock:&lt;b&gt;é\\x01$tag</code></td><td>value</td>"), status_table($html, 'keys'));
    } else {
        check('map: the page says it shows its own worker\'s store only, and the lock another worker holds is not on it',
            str_contains($html, 'every worker has its own store') && !str_contains($html, $lockRow), $html);
    }
    if ($mode === 'shm') {
        browser_checks($tag);
    }

    [$code, $headers, $text] = status_page(['format' => 'prometheus'], $auth);
    $errors = [];
    $metrics = parse_prometheus($text, $errors);
    $want = ['ephpm_keys' => 'gauge', 'ephpm_memory_used_bytes' => 'gauge', 'ephpm_memory_limit_bytes' => 'gauge',
        'ephpm_memory_evictable_bytes' => 'gauge', 'ephpm_hits_total' => 'counter', 'ephpm_misses_total' => 'counter',
        'ephpm_expired_total' => 'counter', 'ephpm_evicted_total' => 'counter', 'ephpm_rejected_total' => 'counter',
        'ephpm_fence_records' => 'gauge', 'ephpm_quarantined_entries' => 'gauge', 'ephpm_compressed_entries' => 'gauge'];
    foreach ($want as $name => $type) {
        $got = $metrics[$name] ?? [];
        if (($got['type'] ?? '') !== $type || ($got['help'] ?? '') === '' || !preg_match('/^\d+$/', $got['value'] ?? '')) {
            $errors[] = "$name: " . json_encode($got) . ", want a $type with HELP and an integer";
        }
    }
    if (array_diff_key($metrics, $want)) {
        $errors[] = 'other metrics: ' . implode(', ', array_keys(array_diff_key($metrics, $want)));
    }
    if ($shared && (int)($metrics['ephpm_keys']['value'] ?? 0) < 3) {
        $errors[] = 'ephpm_keys below the 3 keys held';
    }
    check('?format=prometheus: the 12 counters, each with HELP and TYPE, in the text format',
        $code === 200 && str_starts_with($headers['content-type'] ?? '', 'text/plain; version=0.0.4') && !$errors,
        "$code " . implode('; ', $errors));
    // build/deps.sh status unpacks it there (Debian has it only inside the prometheus package)
    $promtool = dirname(__DIR__, 2) . '/build/out/promtool/promtool';
    $promtool = is_executable($promtool) ? $promtool : trim((string)shell_exec('command -v promtool'));
    if ($promtool !== '') {
        $p = proc_open([$promtool, 'check', 'metrics'], [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        fwrite($pipes[0], $text);
        fclose($pipes[0]);
        $said = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
        check('promtool check metrics accepts it', proc_close($p) === 0, trim($said));
    } else {
        echo "skip [$mode] promtool check metrics: no promtool (build/deps.sh status unpacks Debian's)\n";
    }

    if ($shared) {
        finish([start_request('signal.php', ['key' => $release])]);
    }
    [$held] = finish([$holder]);
    check('the lock was held by another worker than the one that served the page',
        preg_match('/^held (\d+) fence (\d+)$/', $held, $m) && $m[1] !== $pagePid, "holder: $held, page: pid $pagePid");
    if ($shared) {
        check("the page showed the lock's fence, as its holder had it", ($m[2] ?? '') === $pageFence, "holder: $held, page: fence $pageFence");
    }
}

/**
 * The page in headless Chromium, through a web server (`php -S` with
 * proxy.php, which passes requests to php-fpm as nginx would, with
 * EPHPM_STATUS_ALLOW=127.0.0.1): its DOM holds the lock rows, and its
 * screenshot is a PNG with something on it.
 */
function browser_checks(string $tag): void
{
    global $mode, $socket;
    $chromium = trim((string)shell_exec('command -v chromium'));
    if ($chromium === '') {
        echo "skip [$mode] the status page in headless Chromium: chromium is not installed (build/deps.sh status)\n";
        return;
    }
    $probe = stream_socket_server('tcp://127.0.0.1:0');
    $port = (int)substr(strrchr(stream_socket_get_name($probe, false), ':'), 1);
    fclose($probe);
    $work = sys_get_temp_dir() . '/ephpm-chromium-' . getmypid();
    @mkdir($work);
    $server = proc_open([PHP_BINARY, '-n', '-S', "127.0.0.1:$port", __DIR__ . '/proxy.php'],
        [1 => ['file', "$work/server.log", 'w'], 2 => ['file', "$work/server.log", 'a']], $pipes, null,
        ['EPHPM_PROXY_SOCKET' => $socket, 'EPHPM_PROXY_SCRIPT' => dirname(__DIR__, 2) . '/php/status.php', 'PATH' => getenv('PATH')]);
    for ($t = 0; $t < 100 && !@fsockopen('127.0.0.1', $port); $t++) {
        usleep(50000);
    }
    $url = "http://127.0.0.1:$port/status.php?prefix=status%3A";
    $run = function (string ...$args) use ($chromium, $work): string {
        $p = proc_open(['timeout', '90', $chromium, '--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
            "--user-data-dir=$work/profile", ...$args], [1 => ['pipe', 'w'], 2 => ['file', "$work/chromium.log", 'a']], $pipes);
        $out = stream_get_contents($pipes[1]);
        proc_close($p);
        return $out;
    };
    $dom = $run('--dump-dom', $url);
    check('headless Chromium: the DOM of the page holds the lock row and the lease rows',
        str_contains($dom, "status:lock:&lt;b&gt;é\\x01$tag") && str_contains(status_table($dom, 'locks'), "<tr class=\"lock\">")
        && str_contains(status_table($dom, 'leases'), "status:sem:$tag"), substr($dom, 0, 300) . ' ... ' . status_table($dom, 'locks'));
    $png = "$work/status.png";
    $run('--window-size=1280,1600', "--screenshot=$png", $url);
    $size = @getimagesize($png);
    $keep = dirname(__DIR__, 2) . '/build/out/fpm-status.png';
    @copy($png, $keep);
    // A blank page of that size compresses to about 6 KiB; this one's text and tables, to over 60.
    check('headless Chromium: a screenshot of the page, 1280x1600, not blank (kept in build/out/fpm-status.png)',
        $size && $size[0] === 1280 && $size[1] === 1600 && $size[2] === IMAGETYPE_PNG && filesize($png) > 30000,
        $size ? "{$size[0]}x{$size[1]}, " . filesize($png) . ' bytes' : 'no PNG: ' . @file_get_contents("$work/chromium.log"));
    proc_terminate($server);
    proc_close($server);
    shell_exec('rm -rf ' . escapeshellarg($work));
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
    status_checks();
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
    status_checks();
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

status_checks();

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
