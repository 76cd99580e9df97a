--TEST--
php/status.php, run in this process: off (403) until protected, then by an allow-list of addresses (IPv4 and IPv6 CIDRs) or basic auth (hash_equals); its tables list the locks, leases and keys held, keys escaped (<script>, NUL, U+202E), filtered by a prefix whose glob characters are literal, paged on the scan cursor (a bad cursor is an error on the page); ?format=prometheus has the 12 counters
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('the page is PHP (38 s of the memcheck run, most of it rendering and escaping); the calls it makes into the extension, ephpm_kv_scan() and ephpm_kv_stats(), run under valgrind in kv_scan*.phpt and the stats tests'); ?>
--INI--
; the test's regular expressions read the page's output buffers, where PCRE's JIT reads 16 bytes at a time past
; the end, which memcheck reports (test-valgrind): the interpreter reads exactly
pcre.jit=0
--FILE--
<?php
ob_start(); // the test's own output, held so the page can still set its status and headers
/** The page as a request with these query and server parameters sees it: [status, body]. */
function page(array $get = [], array $server = []): array
{
    $_GET = $get;
    $_SERVER = $server + ['REMOTE_ADDR' => '127.0.0.1'];
    http_response_code(200);
    ob_start();
    include __DIR__ . '/../php/status.php';
    return [http_response_code(), ob_get_clean()];
}
function table(string $html, string $id): string
{
    return preg_match('#<table id="' . $id . '">(.*?)</table>#s', $html, $m) ? $m[1] : "(no table $id)";
}

echo "protection\n";
[$code, $body] = page();
var_dump($code, str_contains($body, 'EPHPM_STATUS_PASSWORD'), str_contains($body, '<table'));
putenv('EPHPM_STATUS_ALLOW=192.0.2.0/24, 2001:db8::/32');
var_dump(page()[0], page([], ['REMOTE_ADDR' => '192.0.2.9'])[0], page([], ['REMOTE_ADDR' => '2001:db8::1'])[0],
    page([], ['REMOTE_ADDR' => '192.0.3.1'])[0]);
putenv('EPHPM_STATUS_ALLOW');
putenv('EPHPM_STATUS_PASSWORD=correct horse');
var_dump(page()[0], page([], ['PHP_AUTH_USER' => 'ephpm', 'PHP_AUTH_PW' => 'wrong'])[0],
    page([], ['PHP_AUTH_USER' => 'ephpm', 'PHP_AUTH_PW' => 'correct horse'])[0],
    page([], ['HTTP_AUTHORIZATION' => 'Basic ' . base64_encode('ephpm:correct horse')])[0]);
$auth = ['PHP_AUTH_USER' => 'ephpm', 'PHP_AUTH_PW' => 'correct horse'];

echo "tables\n";
$tag = 'st' . bin2hex(random_bytes(3)) . ':';
$lock = Ephpm\Lock::acquire("{$tag}lock:<script>\0é\u{202e}x", 30);
$sem = Ephpm\Semaphore::acquire("{$tag}sem", 2, 30);
$rw = Ephpm\ReadWriteLock::read("{$tag}rw", 30);
for ($i = 0; $i < 5; $i++) {
    ephpm_kv_set("{$tag}k:$i", str_repeat('v', $i + 1));
}
ephpm_kv_set("{$tag}[x]*?", 'glob');
ephpm_kv_set('other:' . $tag, 'not under the prefix');
[$code, $html] = page(['prefix' => $tag], $auth);
var_dump($code);
$locks = table($html, 'locks');
var_dump(str_contains($locks, "<code>{$tag}lock:&lt;script&gt;\\x00é\\u202ex</code></td><td class=\"num fence\">{$lock->fence}</td>"),
    substr_count($locks, '<tr class="lock">'));
$leases = table($html, 'leases');
var_dump(substr_count($leases, '<tr class="lease">'), str_contains($leases, "<code>{$tag}sem</code></td><td class=\"num\">1</td>"),
    str_contains($leases, "<code>{$tag}rw</code></td><td class=\"num\">1</td><td class=\"num fence\">{$rw->fence}</td>"));
var_dump(substr_count(table($html, 'keys'), '<tr class="key'), str_contains($html, 'other:'), str_contains($html, '<script>'));

echo "glob characters in the prefix are literal\n";
$keys = table(page(['prefix' => "{$tag}[x]*"], $auth)[1], 'keys');
var_dump(substr_count($keys, '<tr class="key'), str_contains($keys, "<code>{$tag}[x]*?</code>"));

echo "pages\n";
$seen = [];
$query = ['prefix' => $tag, 'count' => '2'];
for ($pages = 1; $pages < 100; $pages++) {
    $html = page($query, $auth)[1];
    preg_match_all('#<tr class="key[^"]*"><td><code>(.*?)</code>#', $html, $m);
    foreach ($m[1] as $k) {
        $seen[$k] = true;
    }
    if (!preg_match('#<a href="\?([^"]*)" rel="next">#', $html, $next)) {
        break;
    }
    parse_str(html_entity_decode($next[1]), $query);
}
var_dump(count($seen), $pages > 1, str_contains($html, 'last page'));
[$code, $html] = page(['cursor' => 'not a cursor!'], $auth);
var_dump($code, (bool)preg_match('#<p class="err">ephpm-kv: [^<]*cursor#', $html));

echo "prometheus\n";
[$code, $text] = page(['format' => 'prometheus'], $auth);
preg_match_all('/^# TYPE (\w+) (\w+)$/m', $text, $types, PREG_SET_ORDER);
foreach ($types as [, $name, $type]) {
    echo $name, ' ', $type, ' ', preg_match("/^$name \\d+$/m", $text) ? 'sample' : 'NO SAMPLE', "\n";
}
var_dump(substr_count($text, '# HELP '), count(explode("\n", trim($text))));
?>
--EXPECT--
protection
int(403)
bool(true)
bool(false)
int(403)
int(200)
int(200)
int(403)
int(401)
int(401)
int(200)
int(200)
tables
int(200)
bool(true)
int(1)
int(2)
bool(true)
bool(true)
int(9)
bool(false)
bool(false)
glob characters in the prefix are literal
int(1)
bool(true)
pages
int(9)
bool(true)
bool(true)
int(200)
bool(true)
prometheus
ephpm_keys gauge sample
ephpm_memory_used_bytes gauge sample
ephpm_memory_limit_bytes gauge sample
ephpm_memory_evictable_bytes gauge sample
ephpm_hits_total counter sample
ephpm_misses_total counter sample
ephpm_expired_total counter sample
ephpm_evicted_total counter sample
ephpm_rejected_total counter sample
ephpm_fence_records gauge sample
ephpm_quarantined_entries gauge sample
ephpm_compressed_entries gauge sample
int(12)
int(36)
