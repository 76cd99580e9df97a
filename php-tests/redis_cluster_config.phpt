--TEST--
ephpm.server redis-cluster://: a malformed seed list is KvException CONFIG, an unreachable cluster UNAVAILABLE (setnx never false); a Redis whose maxmemory-policy evicts keys is refused as CONFIG, naming the policy
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is on the Go side (its settings parsed and refused there); the C side only passes the setting, as every test under valgrind does'); ephpm_run_once('brings its own redis-server');
if (!is_executable('/usr/bin/redis-server')) die('skip redis-server is not installed (build/deps.sh redis)'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$try = <<<'PHP'
    try {
        var_dump(ephpm_kv_setnx("lock", "A", 10));
    } catch (Ephpm\KvException $e) {
        $names = [Ephpm\KvException::CONFIG => 'CONFIG', Ephpm\KvException::UNAVAILABLE => 'UNAVAILABLE'];
        echo $names[$e->getCode()] ?? $e->getCode(), ": ", $e->getMessage(), "\n";
    }
    PHP;
echo ephpm_child('redis-cluster://127.0.0.1', $try), "\n";
$probe = stream_socket_server('tcp://127.0.0.1:0');
$port = (int) substr(strrchr(stream_socket_get_name($probe, false), ':'), 1);
fclose($probe);
echo str_replace((string) $port, 'PORT', ephpm_child("redis-cluster://127.0.0.1:$port", $try)), "\n";

$dir = sys_get_temp_dir() . '/ephpm-redis-lru-' . getmypid();
@mkdir($dir);
$sock = "$dir/r.sock";
$redis = proc_open(['redis-server', '--port', '0', '--unixsocket', $sock, '--save', '', '--appendonly', 'no',
    '--dir', $dir, '--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru'],
    [1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
register_shutdown_function(function () use ($redis, $dir) {
    proc_terminate($redis);
    proc_close($redis);
    exec('rm -rf ' . escapeshellarg($dir));
});
for ($i = 0; $i < 250 && !file_exists($sock); $i++) {
    usleep(20000);
}
echo str_replace($sock, 'SOCK', ephpm_child("unix://$sock", $try)), "\n";
?>
--EXPECTF--
CONFIG: ephpm-kv: the library refused its configuration: ephpm.server "redis-cluster://127.0.0.1": seed "127.0.0.1" is not host:port (a Redis Cluster is redis-cluster://host:port,host:port,...)
UNAVAILABLE: ephpm-kv: store unavailable: Redis Cluster at redis-cluster://127.0.0.1:PORT: %s
CONFIG: ephpm-kv: maxmemory-policy is not noeviction: the Valkey/Redis server at unix://SOCK has maxmemory-policy allkeys-lru, which may evict a live lock (granted twice then); set it to noeviction
