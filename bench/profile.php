<?php
// Where a lock pair's, a get's and a set's instructions go, the shared
// engine next to APCu: callgrind counts instructions, not seconds, so the
// figures repeat run after run whatever else the machine does (the timed
// benches, bench/lock_pair.php, are the ones that say how fast). Each
// contender and case runs bench/profile_loop.php under callgrind twice, N
// and 2N operations; the difference over N is the cost of one operation,
// startup and the Go runtime's start cancelled out. Per operation: the
// total, its shares (PHP's interpreter, the extension's C, the C->Go
// crossing, the Go store, libc and the loader), and the top functions.
//
// Usage: php bench/profile.php   (after make all; make bench runs it)
// Knobs: N (20000) CASES ("pair get set") TOP (12)
// The Go library is a build without DWARF (valgrind 3.19 cannot read Go's
// DWARF 5), from the same sources: PROFILE_LIB, which make bench builds.
$root = dirname(__DIR__);
$n = (int)(getenv('N') ?: 20000);
$cases = preg_split('/\s+/', trim(getenv('CASES') ?: 'pair get set'));
$top = (int)(getenv('TOP') ?: 12);
$lib = getenv('PROFILE_LIB') ?: "$root/build/out/profile/libephpm_kv.so";
$ext = "$root/build/ephpm.so";
foreach ([$lib, $ext] as $f) {
    is_file($f) || die("profile: $f missing: run make bench (it builds it)\n");
}
trim((string)shell_exec('command -v valgrind')) !== '' || die("profile: valgrind is not installed (build/deps.sh valgrind)\n");

$contenders = [
    'shared engine' => ['ephpm', ['extension' => $ext, 'ephpm.library' => $lib]],
    'APCu' => ['apcu', ['extension' => 'apcu', 'apc.enable_cli' => '1']],
];

// share names the part of the stack a function belongs to.
function share(string $fn, string $obj): string
{
    $base = basename($obj);
    if (str_contains($fn, '/ext/')) { // lines callgrind could not pin to a function
        return 'extension (C)';
    }
    if (str_starts_with($base, 'php')) {
        return 'PHP';
    }
    if ($base === 'ephpm.so' || $base === 'apcu.so') {
        return $base === 'apcu.so' ? 'store (C)' : 'extension (C)';
    }
    if ($base === 'libephpm_kv.so') {
        return str_starts_with($fn, 'github.com/ephpm/ephpm-kv/') ? 'store (Go)' : 'crossing (cgo, exports)';
    }
    return 'libc, loader';
}

// profile: self instructions per function (name => [count, share]).
function profile(array $ini, string $contender, string $case, int $n): array
{
    $out = tempnam(sys_get_temp_dir(), 'ephpm-callgrind.');
    $cmd = ['valgrind', '--tool=callgrind', "--callgrind-out-file=$out", PHP_BINARY, '-n'];
    foreach ($ini as $k => $v) {
        array_push($cmd, '-d', "$k=$v");
    }
    array_push($cmd, __DIR__ . '/profile_loop.php', $contender, $case, (string)$n);
    $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $stdout = stream_get_contents($pipes[1]);
    $stderr = stream_get_contents($pipes[2]);
    if (proc_close($p) !== 0) {
        @unlink($out);
        fwrite(STDERR, "profile: $contender $case failed:\n$stdout$stderr");
        exit(1);
    }
    $text = shell_exec('callgrind_annotate --threshold=100 --inclusive=no ' . escapeshellarg($out) . ' 2>/dev/null');
    unlink($out);
    $fns = [];
    foreach (explode("\n", (string)$text) as $line) {
        // "  1,234 ( 0.5%)  file:function [object]"
        if (!preg_match('/^\s*([\d,]+)\s+\([^)]*\)\s+(.*?)(?:\s+\[(.*)\])?$/', $line, $m) || str_contains($line, 'PROGRAM TOTALS')) {
            continue;
        }
        $name = $m[2];
        if (preg_match('/^(?:\?\?\?|\.[^:]*|\/[^:]*):(.+)$/', $name, $f)) {
            $name = $f[1];
        }
        $count = (int)str_replace(',', '', $m[1]);
        $fns[$name] ??= [0, share($name, $m[3] ?? '')];
        $fns[$name][0] += $count;
    }
    return $fns;
}

printf("Instructions per operation (callgrind, %d and %d operations, the difference / %d)\n", $n, 2 * $n, $n);
foreach ($cases as $case) {
    $rows = [];
    foreach ($contenders as $label => [$contender, $ini]) {
        $a = profile($ini, $contender, $case, $n);
        $b = profile($ini, $contender, $case, 2 * $n);
        $per = [];
        foreach ($b as $name => [$count, $share]) {
            $d = ($count - ($a[$name][0] ?? 0)) / $n;
            if ($d >= 0.5) {
                $per[$name] = [$d, $share];
            }
        }
        uasort($per, fn ($x, $y) => $y[0] <=> $x[0]);
        $rows[$label] = $per;
    }
    echo "\n== $case\n";
    $totals = [];
    foreach ($rows as $label => $per) {
        $totals[$label] = array_sum(array_column($per, 0));
        $shares = [];
        foreach ($per as [$d, $share]) {
            $shares[$share] = ($shares[$share] ?? 0) + $d;
        }
        arsort($shares);
        printf("%-14s %6.0f in all:", $label, $totals[$label]);
        foreach ($shares as $share => $d) {
            printf("  %s %.0f", $share, $d);
        }
        echo "\n";
    }
    if (isset($totals['APCu']) && $totals['APCu'] > 0) {
        printf("shared engine / APCu: %.2fx\n", $totals['shared engine'] / $totals['APCu']);
    }
    foreach ($rows as $label => $per) {
        echo "  $label, top functions:\n";
        foreach (array_slice($per, 0, $top, true) as $name => [$d, $share]) {
            printf("    %6.0f  %-24s %s\n", $d, $share, $name);
        }
    }
}
