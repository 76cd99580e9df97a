--TEST--
On a Redis: a value over its proto-max-bulk-len is KvException VALUE_TOO_LARGE, a write over its maxmemory is FULL (setnx never false), each saying which Redis setting to raise; an unreachable redis:// is UNAVAILABLE
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is on the Go side (its settings parsed and refused there); the C side only passes the setting, as every test under valgrind does'); ephpm_run_once('brings its own redis-server');
if (!is_executable('/usr/bin/redis-server')) die('skip redis-server is not installed (build/deps.sh redis)'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$dir = sys_get_temp_dir() . '/ephpm-redis-' . getmypid();
@mkdir($dir);
$sock = "$dir/r.sock";
$redis = proc_open(['redis-server', '--port', '0', '--unixsocket', $sock, '--save', '', '--appendonly', 'no',
    '--dir', $dir, '--proto-max-bulk-len', '1mb', '--maxmemory', '4mb', '--maxmemory-policy', 'noeviction'],
    [1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
register_shutdown_function(function () use ($redis, $dir) {
    proc_terminate($redis);
    proc_close($redis);
    exec('rm -rf ' . escapeshellarg($dir));
});
for ($i = 0; $i < 250 && !file_exists($sock); $i++) {
    usleep(20000);
}
$code = <<<'PHP'
    function attempt(string $what, callable $fn) {
        try {
            var_dump($fn());
        } catch (Ephpm\KvException $e) {
            printf("%s: code %d: %s\n", $what, $e->getCode(), $e->getMessage());
        }
    }
    attempt('1 MiB', fn () => ephpm_kv_set('v', str_repeat('x', 1 << 20)));
    attempt('1 MiB + 1', fn () => ephpm_kv_set('v', str_repeat('x', (1 << 20) + 1)));
    attempt('del_if_eq with a token over the limit', fn () => ephpm_kv_del_if_eq('v', str_repeat('x', (1 << 20) + 1)));
    ephpm_kv_del('v');
    // Redis refuses a write once its used_memory (which counts the
    // command being read) is over maxmemory: full for a small write too
    // only after small writes were refused.
    $stored = 0;
    foreach ([64 << 10, 1 << 10, 16] as $size) {
        try {
            for (;; $stored++) {
                ephpm_kv_set("fill:$stored", random_bytes($size));
            }
        } catch (Ephpm\KvException $e) {
            if ($size === 16) {
                printf("filling: code %d after %s: %s\n", $e->getCode(), $stored > 10 ? 'some writes' : $stored, $e->getMessage());
            }
        }
    }
    attempt('setnx', fn () => ephpm_kv_setnx('lock', 'A', 10));
    attempt('Lock::acquire', fn () => Ephpm\Lock::acquire('lock2', 10));
    var_dump(ephpm_kv_get('fill:0') !== null, ephpm_kv_del('fill:0'), ephpm_kv_del('fill:1'));
    attempt('setnx after deletes', fn () => ephpm_kv_setnx('lock', 'A', 10));
    PHP;
echo str_replace($sock, 'SOCK', ephpm_child("unix://$sock", $code)), "\n";
$probe = stream_socket_server('tcp://127.0.0.1:0');
$port = (int) substr(strrchr(stream_socket_get_name($probe, false), ':'), 1);
fclose($probe);
echo str_replace((string) $port, 'PORT', ephpm_child("redis://127.0.0.1:$port",
    'try { var_dump(ephpm_kv_setnx("lock", "A", 10)); } catch (Ephpm\KvException $e) { echo $e->getCode(), ": ", $e->getMessage(), "\n"; }')), "\n";
?>
--EXPECTF--
bool(true)
1 MiB + 1: code 4: ephpm-kv: value is too large: 1048577 bytes, the Valkey/Redis server at unix://SOCK has proto-max-bulk-len 1048576; raise the server's proto-max-bulk-len or store smaller values
bool(false)
filling: code 6 after some writes: ephpm-kv: store full at the Valkey/Redis server unix://SOCK: OOM command not allowed when used memory > 'maxmemory'.; raise the server's maxmemory, give entries a TTL, or delete what is no longer needed
setnx: code 6: %sOOM%s
Lock::acquire: code 6: %sOOM%s
bool(true)
int(1)
int(1)
bool(true)
10: ephpm-kv: store unavailable: cannot reach the Valkey/Redis server at redis://127.0.0.1:PORT: %s
