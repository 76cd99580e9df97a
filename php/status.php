<?php

declare(strict_types=1);

/*
 * ephpm-kv status page: copy this file into a php-fpm pool's document root,
 * as APCu's apc.php (docs/operations.md, "The status page").
 *
 * It shows the store this PHP process uses (ephpm_kv_stats()): the engine and
 * its segment or server, the memory held and evictable, hits, misses and their
 * ratio, expired, evicted and rejected writes; the held locks (keys with a TTL
 * holding a value) and the leases (read/write locks and semaphores) with their
 * holders, each with its time left; and the keys, one page at a time on the
 * cursor of ephpm_kv_scan(), filtered by a prefix. Plain HTML, no JavaScript,
 * read-only: it never writes to the store. ?format=prometheus serves the
 * counters in Prometheus's text format.
 *
 * It refuses to run (HTTP 403, saying why) until it is protected by either or
 * both of:
 *   EPHPM_STATUS_PASSWORD  HTTP basic auth with this password (the user is
 *                          EPHPM_STATUS_USER, "ephpm" unless set)
 *   EPHPM_STATUS_ALLOW     the client addresses allowed: IPs and CIDRs, comma-
 *                          or space-separated (REMOTE_ADDR as the web server
 *                          passes it; X-Forwarded-For is never read)
 * each a constant defined before this file runs (a file that defines them and
 * then includes this one), an environment variable of the pool
 * (env[EPHPM_STATUS_PASSWORD] = ...) or a FastCGI parameter the web server
 * sets (nginx: fastcgi_param EPHPM_STATUS_ALLOW "10.0.0.0/8";). With both,
 * both are required. Serve it over HTTPS when a password crosses a network.
 *
 * With ephpm.shm_size=0 (the in-process map) each worker has a store of its
 * own, and the page shows only the one of the worker that served it.
 */

namespace Ephpm\StatusPage;

if (!\function_exists(__NAMESPACE__ . '\serve')) {
    /**
     * The counters of ?format=prometheus: name => [stats key, type, help], the
     * names and help of the ephpm-kv server's --metrics (go/server/metrics.go).
     */
    \define(__NAMESPACE__ . '\METRICS', [
        'ephpm_keys' => ['keys', 'gauge', 'Entries held, including expired ones not reclaimed yet.'],
        'ephpm_memory_used_bytes' => ['bytes_used', 'gauge', 'Accounted memory: keys, stored values and per-entry overhead.'],
        'ephpm_memory_limit_bytes' => ['bytes_limit', 'gauge', 'The accounted memory the store may hold (ephpm.shm_size, ephpm.memory_limit, the server\'s limit).'],
        'ephpm_memory_evictable_bytes' => ['bytes_evictable', 'gauge', 'Of the memory used, what evictable (cache) entries hold.'],
        'ephpm_hits_total' => ['hits', 'counter', 'Reads that found a live key.'],
        'ephpm_misses_total' => ['misses', 'counter', 'Reads that found no live key.'],
        'ephpm_expired_total' => ['expired', 'counter', 'Entries reclaimed after their TTL ran out.'],
        'ephpm_evicted_total' => ['evicted', 'counter', 'Evictable entries dropped to make room.'],
        'ephpm_rejected_total' => ['rejected', 'counter', 'Writes refused because the store was full.'],
        'ephpm_fence_records' => ['fences', 'gauge', 'Fence records held (one per fenced resource).'],
        'ephpm_quarantined_entries' => ['quarantined', 'gauge', 'Entries found corrupt and kept unreadable until they go.'],
        'ephpm_compressed_entries' => ['compressed', 'gauge', 'Entries stored compressed.'],
    ]);

    /** Keys a page lists by default and at most. */
    \define(__NAMESPACE__ . '\PAGE_DEFAULT', 100);
    \define(__NAMESPACE__ . '\PAGE_MAX', 1000);

    /** Scan steps of 1000 keys the locks and leases walk takes at most. */
    \define(__NAMESPACE__ . '\HELD_WALK_STEPS', 50);

    /** Rows the locks and leases tables show at most. */
    \define(__NAMESPACE__ . '\HELD_ROWS', 500);

    /** A setting: a constant, else the environment, else a FastCGI parameter. */
    function setting(string $name): ?string
    {
        if (\defined($name)) {
            $v = \constant($name);
            return \is_scalar($v) && (string) $v !== '' ? (string) $v : null;
        }
        $v = \getenv($name);
        if (\is_string($v) && $v !== '') {
            return $v;
        }
        $v = $_SERVER[$name] ?? null;
        return \is_string($v) && $v !== '' ? $v : null;
    }

    /** Whether $ip is $rule (an IP) or within it (a CIDR), IPv4 or IPv6. */
    function ip_matches(string $ip, string $rule): bool
    {
        $addr = @\inet_pton($ip);
        if ($addr === false) {
            return false;
        }
        [$net, $bits] = \str_contains($rule, '/') ? \explode('/', $rule, 2) : [$rule, null];
        $net = @\inet_pton($net);
        if ($net === false || \strlen($net) !== \strlen($addr)) {
            return false;
        }
        $max = 8 * \strlen($addr);
        if ($bits === null) {
            $bits = $max;
        } elseif (!\preg_match('/^\d{1,3}$/', $bits) || (int) $bits > $max) {
            return false;
        }
        $bits = (int) $bits;
        $whole = \intdiv($bits, 8);
        if (\substr($addr, 0, $whole) !== \substr($net, 0, $whole)) {
            return false;
        }
        if ($bits % 8 === 0) {
            return true;
        }
        $mask = (0xff << (8 - $bits % 8)) & 0xff;
        return (\ord($addr[$whole]) & $mask) === (\ord($net[$whole]) & $mask);
    }

    /** The basic-auth user and password the request carries, or nulls. */
    function credentials(): array
    {
        if (isset($_SERVER['PHP_AUTH_USER'])) {
            return [(string) $_SERVER['PHP_AUTH_USER'], (string) ($_SERVER['PHP_AUTH_PW'] ?? '')];
        }
        // Under CGI the header may come through as a variable of its own.
        $header = $_SERVER['HTTP_AUTHORIZATION'] ?? $_SERVER['REDIRECT_HTTP_AUTHORIZATION'] ?? '';
        if (\is_string($header) && \preg_match('/^Basic\s+([A-Za-z0-9+\/=]+)\s*$/i', $header, $m)) {
            $pair = \base64_decode($m[1], true);
            if (\is_string($pair) && \str_contains($pair, ':')) {
                return \explode(':', $pair, 2);
            }
        }
        return [null, null];
    }

    /**
     * Whether the request may see the page: null when it may, else
     * [HTTP status, extra headers, explanation].
     */
    function refusal(): ?array
    {
        $password = setting('EPHPM_STATUS_PASSWORD');
        $allow = setting('EPHPM_STATUS_ALLOW');
        if ($password === null && $allow === null) {
            return [403, [], "This status page is off until it is protected.\n\n"
                . "Set EPHPM_STATUS_PASSWORD (HTTP basic auth, user EPHPM_STATUS_USER or \"ephpm\") and/or "
                . "EPHPM_STATUS_ALLOW (client IPs or CIDRs, comma-separated): as a constant defined before this "
                . "file runs, in the pool's environment (env[EPHPM_STATUS_PASSWORD] = ...), or as a FastCGI "
                . "parameter of the web server (fastcgi_param EPHPM_STATUS_ALLOW 127.0.0.1;). "
                . "See docs/operations.md, \"The status page\"."];
        }
        if ($allow !== null) {
            $ip = (string) ($_SERVER['REMOTE_ADDR'] ?? '');
            $ok = false;
            foreach (\preg_split('/[\s,]+/', $allow, -1, \PREG_SPLIT_NO_EMPTY) as $rule) {
                $ok = $ok || ip_matches($ip, $rule);
            }
            if (!$ok) {
                return [403, [], "The client address " . ($ip === '' ? '(none)' : $ip)
                    . " is not in EPHPM_STATUS_ALLOW."];
            }
        }
        if ($password !== null) {
            [$user, $given] = credentials();
            $wantUser = setting('EPHPM_STATUS_USER') ?? 'ephpm';
            // Both compared, whichever fails: the time taken says nothing.
            $userOk = \hash_equals($wantUser, (string) $user);
            $passwordOk = \hash_equals($password, (string) $given);
            if ($user === null || !$userOk || !$passwordOk) {
                return [401, ['WWW-Authenticate: Basic realm="ephpm-kv status", charset="UTF-8"'],
                    $user === null ? 'This status page needs a user and password (EPHPM_STATUS_PASSWORD).'
                        : 'Wrong user or password.'];
            }
        }
        return null;
    }

    /** The letter of a control byte's short escape, or null. */
    function short_escape(int $c): ?string
    {
        return [7 => 'a', 8 => 'b', 9 => 't', 10 => 'n', 11 => 'v', 12 => 'f', 13 => 'r'][$c] ?? null;
    }

    /**
     * A key as readable text, as the extension's messages quote keys: control
     * bytes as \n, \t or \xNN, bytes that are not UTF-8 as \xNN, characters
     * that are invisible or reorder text (U+00A0, U+200B, U+202E...) as
     * \uNNNN, a backslash doubled; other UTF-8 kept. Not yet HTML-escaped.
     */
    function readable(string $key): string
    {
        $utf8 = '[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}'
            . '|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}'
            . '|\xf4[\x80-\x8f][\x80-\xbf]{2}';
        return (string) \preg_replace_callback('/' . $utf8 . '|[\x00-\x1f\x7f-\xff\\\\]/', static function (array $m): string {
            $s = $m[0];
            if (\strlen($s) === 1) {
                $c = \ord($s);
                if ($s === '\\') {
                    return '\\\\';
                }
                $letter = short_escape($c);
                return $letter !== null ? '\\' . $letter : \sprintf('\\x%02x', $c);
            }
            $b = \array_map('ord', \str_split($s));
            $cp = match (\count($b)) {
                2 => (($b[0] & 0x1f) << 6) | ($b[1] & 0x3f),
                3 => (($b[0] & 0x0f) << 12) | (($b[1] & 0x3f) << 6) | ($b[2] & 0x3f),
                default => (($b[0] & 0x07) << 18) | (($b[1] & 0x3f) << 12) | (($b[2] & 0x3f) << 6) | ($b[3] & 0x3f),
            };
            $invisible = ($cp >= 0x80 && $cp <= 0xa0) || $cp === 0xad || $cp === 0x1680
                || ($cp >= 0x2000 && $cp <= 0x200f) || ($cp >= 0x2028 && $cp <= 0x202f)
                || ($cp >= 0x205f && $cp <= 0x206f) || $cp === 0x3000 || $cp === 0xfeff;
            return $invisible ? \sprintf('\\u%04x', $cp) : $s;
        }, $key);
    }

    function h(string $s): string
    {
        return \htmlspecialchars($s, \ENT_QUOTES | \ENT_SUBSTITUTE | \ENT_HTML5, 'UTF-8');
    }

    /** A key for HTML: readable(), then escaped. */
    function key_html(string|int $key): string
    {
        return h(readable((string) $key));
    }

    function bytes(int|float $n): string
    {
        $units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
        $i = 0;
        while ($n >= 1024 && $i < \count($units) - 1) {
            $n /= 1024;
            $i++;
        }
        return $i === 0 ? \sprintf('%d B', $n) : \sprintf('%.1f %s', $n, $units[$i]);
    }

    /** Seconds left as people read them; "never" for -1. */
    function time_left(float $ttl): string
    {
        if ($ttl < 0) {
            return 'never';
        }
        if ($ttl < 60) {
            return \sprintf('%.1f s', $ttl);
        }
        $s = (int) \floor($ttl);
        if ($s < 3600) {
            return \sprintf('%d min %02d s', \intdiv($s, 60), $s % 60);
        }
        if ($s < 86400) {
            return \sprintf('%d h %02d min', \intdiv($s, 3600), \intdiv($s % 3600, 60));
        }
        return \sprintf('%d d %02d h', \intdiv($s, 86400), \intdiv($s % 86400, 3600));
    }

    /** The Redis glob that matches the keys starting with $prefix. */
    function prefix_pattern(string $prefix): string
    {
        return $prefix === '' ? '' : \preg_replace('/[*?\[\]\\\\]/', '\\\\$0', $prefix) . '*';
    }

    /** Where the store lives, as the settings say, for people. */
    function store_place(string $engine): string
    {
        switch ($engine) {
            case 'shm':
                $name = (string) \ini_get('ephpm.shm_name');
                $size = (string) \ini_get('ephpm.shm_size');
                return $name !== ''
                    ? "named segment $name (/dev/shm$name, ephpm.shm_size $size), shared by every process that names it"
                    : "anonymous segment of the php-fpm master (ephpm.shm_size $size), shared by its workers";
            case 'map':
                return 'in this process only (ephpm.shm_size=0): this page shows the store of the worker that served it, pid '
                    . \getmypid() . ', and none of the others\'';
            case 'server':
                // Credentials in the address are never shown.
                return (string) \preg_replace('#^([a-z-]+://)[^/@]*@#i', '$1', (string) \ini_get('ephpm.server'));
        }
        return $engine;
    }

    /**
     * One page of keys from $cursor (null: the first): key => info, the
     * cursor of the next page ("" when this is the last), and an error.
     * Steps until the page has $per keys or the walk ends (a pattern may
     * match few keys per step), 50 steps at most.
     */
    function key_page(string $pattern, ?string $cursor, int $per): array
    {
        $rows = [];
        try {
            for ($steps = 0; $steps < 50 && \count($rows) < $per && $cursor !== ''; $steps++) {
                $rows += \ephpm_kv_scan($cursor, $pattern, $per);
            }
        } catch (\Ephpm\KvException $e) {
            return [$rows, '', $e->getMessage()];
        }
        \ksort($rows, \SORT_STRING);
        return [$rows, (string) $cursor, null];
    }

    /**
     * The held locks (a value with a TTL) and the leases among the keys
     * $pattern matches, from a walk of at most HELD_WALK_STEPS steps: [locks,
     * leases, whether the walk ended, error].
     */
    function held(string $pattern): array
    {
        $locks = $leases = [];
        $cursor = null;
        try {
            for ($steps = 0; $steps < HELD_WALK_STEPS && $cursor !== ''; $steps++) {
                foreach (\ephpm_kv_scan($cursor, $pattern, 1000) as $key => $info) {
                    if ($info['kind'] === 'value' && $info['ttl'] >= 0) {
                        $locks[(string) $key] = $info;
                    } elseif ($info['kind'] === 'leases') {
                        $leases[(string) $key] = $info;
                    }
                }
            }
        } catch (\Ephpm\KvException $e) {
            return [$locks, $leases, true, $e->getMessage()];
        }
        $byTimeLeft = static fn (array $a, array $b): int => $a['ttl'] <=> $b['ttl'];
        \uasort($locks, $byTimeLeft);
        \uasort($leases, $byTimeLeft);
        return [$locks, $leases, $cursor === '', null];
    }

    function prometheus(array $stats): string
    {
        $out = '';
        foreach (METRICS as $name => [$key, $type, $help]) {
            $out .= "# HELP $name $help\n# TYPE $name $type\n$name " . (int) ($stats[$key] ?? 0) . "\n";
        }
        return $out;
    }

    /** A link to this page with these query parameters. */
    function href(array $query): string
    {
        $query = \array_filter($query, static fn ($v): bool => $v !== null && $v !== '');
        return '?' . \http_build_query($query, '', '&', \PHP_QUERY_RFC3986);
    }

    /** The rows of the locks or leases table. */
    function held_rows(array $held, bool $leases): string
    {
        $html = '';
        foreach (\array_slice($held, 0, HELD_ROWS, true) as $key => $info) {
            $holders = '';
            if ($leases) {
                try {
                    $holders = '<td class="num">' . \Ephpm\Semaphore::holders((string) $key) . '</td>';
                } catch (\Throwable $e) { // gone or changed since the walk
                    $holders = '<td class="num" title="' . h($e->getMessage()) . '">?</td>';
                }
            }
            // 0: none issued (a lock a plain setnx took)
            $fence = ($info['fence'] ?? 0) > 0 ? (string) $info['fence'] : '–';
            $html .= '<tr class="' . ($leases ? 'lease' : 'lock') . '"><td><code>' . key_html($key) . '</code></td>' . $holders
                . '<td class="num fence">' . h($fence) . '</td><td class="num">' . h(time_left($info['ttl'])) . '</td><td class="num">'
                . h(bytes($info['size'])) . "</td></tr>\n";
        }
        return $html;
    }

    function html(array $stats): string
    {
        $prefix = \is_string($_GET['prefix'] ?? null) ? $_GET['prefix'] : '';
        $per = \filter_var($_GET['count'] ?? PAGE_DEFAULT, \FILTER_VALIDATE_INT, ['options' => ['min_range' => 1, 'max_range' => PAGE_MAX]]);
        $per = $per === false ? PAGE_DEFAULT : $per;
        $cursor = \is_string($_GET['cursor'] ?? null) && $_GET['cursor'] !== '' ? $_GET['cursor'] : null;
        $page = \filter_var($_GET['page'] ?? 1, \FILTER_VALIDATE_INT, ['options' => ['min_range' => 1]]) ?: 1;
        $pattern = prefix_pattern($prefix);

        [$locks, $leases, $walked, $heldError] = held($pattern);
        [$rows, $next, $keysError] = key_page($pattern, $cursor, $per);

        $used = (int) $stats['bytes_used'];
        $limit = (int) $stats['bytes_limit'];
        $evictable = (int) $stats['bytes_evictable'];
        $reads = (int) $stats['hits'] + (int) $stats['misses'];
        $ratio = $reads > 0 ? \sprintf('%.1f %%', 100 * $stats['hits'] / $reads) : '–';
        $engine = (string) $stats['engine'];
        $filtered = $prefix === '' ? '' : ' starting with <code>' . key_html($prefix) . '</code>';

        $o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ephpm-kv status</title>\n"
            . "<meta name=\"viewport\" content=\"width=device-width\">\n<style>\n"
            . "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}"
            . "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}"
            . "table{border-collapse:collapse;margin:.4em 0}th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}"
            . "th{background:#f3f3f3}td.num{text-align:right;white-space:nowrap}code{font-family:ui-monospace,monospace;word-break:break-all}"
            . ".warn{background:#fff4d6;border:1px solid #e0b400;padding:.5em .8em}.err{background:#fde;border:1px solid #c36;padding:.5em .8em}"
            . "meter{width:16em}nav a{margin-right:1em}\n</style></head><body>\n"
            . "<h1>ephpm-kv status</h1>\n";
        if ($engine === 'map') {
            $o .= '<p class="warn">The in-process map (ephpm.shm_size=0): every worker has its own store, and this page shows '
                . 'only the one of worker ' . \getmypid() . ". Locks taken in other workers are not here.</p>\n";
        }
        $o .= "<table id=\"store\">\n"
            . '<tr><th>Engine</th><td>' . h($engine) . "</td></tr>\n"
            . '<tr><th>Store</th><td>' . h(store_place($engine)) . "</td></tr>\n"
            . '<tr><th>Served by</th><td>pid ' . \getmypid() . ' on ' . h((string) \gethostname()) . ', PHP ' . h(\PHP_VERSION)
            . ', ephpm ' . h((string) \phpversion('ephpm')) . ', ' . h(\gmdate('Y-m-d H:i:s')) . " UTC</td></tr>\n"
            . '<tr><th>Keys</th><td>' . (int) $stats['keys'] . "</td></tr>\n"
            . "</table>\n"
            . "<h2>Memory</h2>\n<table id=\"memory\">\n"
            . '<tr><th>Used</th><td class="num">' . h(bytes($used)) . '</td><td>'
            . ($limit > 0 ? '<meter min="0" max="' . $limit . '" value="' . $used . '" high="' . (int) ($limit * 0.9) . '">'
                . h(\sprintf('%.1f %%', 100 * $used / $limit)) . '</meter> ' . h(\sprintf('%.1f %%', 100 * $used / $limit)) . ' of ' . h(bytes($limit)) : '')
            . "</td></tr>\n"
            . '<tr><th>Held</th><td class="num">' . h(bytes(\max(0, $used - $evictable))) . "</td><td>locks, leases, sessions, counters, plain sets: never evicted</td></tr>\n"
            . '<tr><th>Evictable</th><td class="num">' . h(bytes($evictable)) . "</td><td>cache a write may evict to make room</td></tr>\n"
            . "</table>\n"
            . "<h2>Counters</h2>\n<table id=\"counters\">\n"
            . '<tr><th>Hits</th><td class="num">' . (int) $stats['hits'] . "</td></tr>\n"
            . '<tr><th>Misses</th><td class="num">' . (int) $stats['misses'] . "</td></tr>\n"
            . '<tr><th>Hit ratio</th><td class="num">' . h($ratio) . "</td></tr>\n"
            . '<tr><th>Expired</th><td class="num">' . (int) $stats['expired'] . "</td></tr>\n"
            . '<tr><th>Evicted</th><td class="num">' . (int) $stats['evicted'] . "</td></tr>\n"
            . '<tr><th>Rejected (store full)</th><td class="num">' . (int) $stats['rejected'] . "</td></tr>\n"
            . '<tr><th>Compressed</th><td class="num">' . (int) $stats['compressed'] . "</td></tr>\n"
            . '<tr><th>Fence records</th><td class="num">' . (int) $stats['fences'] . "</td></tr>\n"
            . '<tr><th>Quarantined</th><td class="num">' . (int) $stats['quarantined'] . "</td></tr>\n"
            . "</table>\n";

        $o .= "<form method=\"get\" action=\"\"><p><label>Keys starting with <input name=\"prefix\" value=\"" . h($prefix)
            . "\" size=\"40\"></label> <label>per page <input name=\"count\" value=\"$per\" size=\"5\" inputmode=\"numeric\"></label> "
            . "<button type=\"submit\">Filter</button>" . ($prefix !== '' ? ' <a href="' . h(href(['count' => $per === PAGE_DEFAULT ? null : $per])) . '">all keys</a>' : '')
            . "</p></form>\n";

        $o .= '<h2>Held locks' . $filtered . ' (' . \count($locks) . ($walked ? '' : '+') . ")</h2>\n";
        if ($heldError !== null) {
            $o .= '<p class="err">' . h($heldError) . "</p>\n";
        } elseif (!$walked) {
            $o .= '<p class="warn">The walk stopped after about ' . (HELD_WALK_STEPS * 1000) . " keys: give a prefix to see the rest.</p>\n";
        }
        $o .= "<p>Keys holding a value with a TTL: locks (Ephpm\\Lock, ephpm_kv_setnx), and also sessions and other values written with a TTL.</p>\n";
        $o .= "<table id=\"locks\"><tr><th>Key</th><th>Fence</th><th>Time left</th><th>Size</th></tr>\n" . held_rows($locks, false) . "</table>\n";
        if (\count($locks) > HELD_ROWS) {
            $o .= '<p>The ' . HELD_ROWS . " that expire first.</p>\n";
        }
        $o .= '<h2>Leases' . $filtered . ' (' . \count($leases) . ($walked ? '' : '+') . ")</h2>\n"
            . "<p>Read/write locks and semaphores: their live holders, and the time left of the longest lease.</p>\n"
            . "<table id=\"leases\"><tr><th>Key</th><th>Holders</th><th>Newest fence</th><th>Time left</th><th>Size</th></tr>\n" . held_rows($leases, true) . "</table>\n";
        if (\count($leases) > HELD_ROWS) {
            $o .= '<p>The ' . HELD_ROWS . " that expire first.</p>\n";
        }

        $o .= '<h2>Keys' . $filtered . ($page > 1 ? ", page $page" : '') . "</h2>\n";
        if ($keysError !== null) {
            $o .= '<p class="err">' . h($keysError) . "</p>\n";
        }
        $o .= "<table id=\"keys\"><tr><th>Key</th><th>Kind</th><th>Time left</th><th>Size</th></tr>\n";
        foreach ($rows as $key => $info) {
            $o .= '<tr class="key kind-' . h($info['kind']) . '"><td><code>' . key_html($key) . '</code></td><td>' . h($info['kind'])
                . '</td><td class="num">' . h(time_left($info['ttl'])) . '</td><td class="num">' . h(bytes($info['size'])) . "</td></tr>\n";
        }
        $o .= "</table>\n<nav>";
        $keep = ['prefix' => $prefix, 'count' => $per === PAGE_DEFAULT ? null : $per];
        if ($cursor !== null) {
            $o .= '<a href="' . h(href($keep)) . '">first page</a>';
        }
        if ($next !== '') {
            $o .= '<a href="' . h(href($keep + ['cursor' => $next, 'page' => $page + 1])) . '" rel="next">next page</a>';
        } elseif ($keysError === null) {
            $o .= '<span>' . ($page > 1 || $cursor !== null ? 'last page' : 'all keys shown') . '</span>';
        }
        $o .= "</nav>\n<p>A page may show a key twice across pages, or fewer keys than asked, as Redis's SCAN does; a key there"
            . " for the whole walk is on some page.</p>\n"
            . '<p><a href="' . h(href(['format' => 'prometheus'])) . "\">Prometheus format</a></p>\n</body></html>\n";
        return $o;
    }

    /** header(), unless output has begun (a file that includes this one printed something). */
    function send_header(string $header): void
    {
        if (!\headers_sent()) {
            \header($header);
        }
    }

    function plain(int $status, string $text, array $headers = []): void
    {
        if (!\headers_sent()) {
            \http_response_code($status);
        }
        send_header('Content-Type: text/plain; charset=utf-8');
        foreach ($headers as $header) {
            send_header($header);
        }
        echo $text, "\n";
    }

    function serve(): void
    {
        send_header('Cache-Control: no-store');
        send_header('X-Content-Type-Options: nosniff');
        send_header('X-Robots-Tag: noindex');
        $refused = refusal();
        if ($refused !== null) {
            [$status, $headers, $why] = $refused;
            plain($status, $why, $headers);
            return;
        }
        if (!\extension_loaded('ephpm')) {
            plain(500, 'The ephpm extension is not loaded in this PHP.');
            return;
        }
        $prom = ($_GET['format'] ?? '') === 'prometheus';
        try {
            $stats = \ephpm_kv_stats();
        } catch (\Ephpm\KvException $e) {
            plain(503, 'ephpm-kv: the store did not answer: ' . $e->getMessage());
            return;
        }
        if ($prom) {
            send_header('Content-Type: text/plain; version=0.0.4; charset=utf-8');
            echo prometheus($stats);
            return;
        }
        send_header('Content-Type: text/html; charset=utf-8');
        send_header("Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'");
        send_header('X-Frame-Options: DENY');
        send_header('Referrer-Policy: no-referrer');
        echo html($stats);
    }
}

serve();
