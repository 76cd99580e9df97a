--TEST--
rediss://: a Redis over TLS through ephpm.server_tls_* (CA, client certificate, server name); a certificate that does not verify is KvException UNAVAILABLE saying so, never false from setnx; an unreadable CA file is CONFIG
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is on the Go side (its settings parsed and refused there); the C side only passes the setting, as every test under valgrind does'); ephpm_run_once('brings its own redis-server');
if (!is_executable('/usr/bin/redis-server')) die('skip redis-server is not installed (build/deps.sh redis)');
if (!is_executable('/usr/bin/openssl')) die('skip openssl is not installed'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$dir = sys_get_temp_dir() . '/ephpm-tls-' . getmypid();
@mkdir($dir);
$run = function (string $cmd) {
    exec("$cmd 2>&1", $out, $rc);
    if ($rc !== 0) {
        die("failed: $cmd\n" . implode("\n", $out));
    }
};
// A CA, another CA, a server certificate for 127.0.0.1 and localhost and a
// client certificate, both signed by the first.
foreach (['ca', 'other'] as $ca) {
    $run("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj '/CN=$ca' -keyout $dir/$ca.key -out $dir/$ca.crt");
}
file_put_contents("$dir/san.cnf", "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
foreach (['server', 'client'] as $who) {
    $run("openssl req -newkey rsa:2048 -nodes -subj '/CN=$who' -keyout $dir/$who.key -out $dir/$who.csr");
    $run("openssl x509 -req -in $dir/$who.csr -CA $dir/ca.crt -CAkey $dir/ca.key -CAcreateserial -days 1 -out $dir/$who.crt"
        . ($who === 'server' ? " -extfile $dir/san.cnf" : ''));
}
$probe = stream_socket_server('tcp://127.0.0.1:0');
$port = (int) substr(strrchr(stream_socket_get_name($probe, false), ':'), 1);
fclose($probe);
$redis = proc_open(['redis-server', '--port', '0', '--tls-port', (string) $port, '--bind', '127.0.0.1',
    '--save', '', '--appendonly', 'no', '--dir', $dir, '--tls-cert-file', "$dir/server.crt",
    '--tls-key-file', "$dir/server.key", '--tls-ca-cert-file', "$dir/ca.crt", '--tls-auth-clients', 'yes'],
    [1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
register_shutdown_function(function () use ($redis, $dir) {
    proc_terminate($redis);
    proc_close($redis);
    exec('rm -rf ' . escapeshellarg($dir));
});
for ($i = 0; $i < 250 && !@fsockopen('127.0.0.1', $port); $i++) {
    usleep(20000);
}
$code = <<<'PHP'
    try {
        $l = Ephpm\Lock::acquire('tls-lock', 10);
        var_dump($l !== null && $l->fence > 0, ephpm_kv_setnx('tls-lock', 'x', 10), $l->release());
    } catch (Ephpm\KvException $e) {
        printf("code %d: %s\n", $e->getCode(), $e->getMessage());
    }
    PHP;
$client = ['ephpm.server_tls_ca' => "$dir/ca.crt", 'ephpm.server_tls_cert' => "$dir/client.crt",
    'ephpm.server_tls_key' => "$dir/client.key"];
$cases = [
    'verified' => [$client, 'rediss://127.0.0.1:PORT'],
    'verified by name' => [$client, 'rediss://localhost:PORT'],
    'server name given' => [$client + ['ephpm.server_tls_server_name' => 'localhost'], 'rediss://127.0.0.1:PORT'],
    'another CA' => [['ephpm.server_tls_ca' => "$dir/other.crt"] + $client, 'rediss://127.0.0.1:PORT'],
    'another name' => [$client + ['ephpm.server_tls_server_name' => 'redis.example'], 'rediss://127.0.0.1:PORT'],
    'unverified' => [['ephpm.server_tls_ca' => "$dir/other.crt", 'ephpm.server_tls_verify_peer' => '0'] + $client, 'rediss://127.0.0.1:PORT'],
    'no client certificate' => [['ephpm.server_tls_ca' => "$dir/ca.crt"], 'rediss://127.0.0.1:PORT'],
    'missing CA file' => [['ephpm.server_tls_ca' => "$dir/none.crt"], 'rediss://127.0.0.1:PORT'],
    'plain to a TLS port' => [[], 'redis://127.0.0.1:PORT'],
];
foreach ($cases as $name => [$ini, $url]) {
    $out = ephpm_child(str_replace('PORT', (string) $port, $url), $code, $ini);
    // the reasons' details (Go's and OpenSSL's words) are not the point
    $out = preg_replace('/(did not verify|TLS handshake|ephpm.server_tls_ca: open)[^\n]*/', '$1 ...', $out);
    echo "$name:\n", str_replace([$dir, (string) $port], ['DIR', 'PORT'], $out), "\n";
}
?>
--EXPECTF--
verified:
bool(true)
bool(false)
bool(true)
verified by name:
bool(true)
bool(false)
bool(true)
server name given:
bool(true)
bool(false)
bool(true)
another CA:
code 10: %sthe server's TLS certificate did not verify ...
another name:
code 10: %sthe server's TLS certificate did not verify ...
unverified:
bool(true)
bool(false)
bool(true)
no client certificate:
code 10: %s
missing CA file:
code 9: %sephpm.server_tls_ca: open ...
plain to a TLS port:
code 10: %s
