--TEST--
ephpm.server: unix:///abs, unix:/abs, /abs, tcp://host:port, host:port and redis://host:port reach the server (redis:// any RESP server: ephpm-kv, Valkey or Redis); other forms, and TLS settings without rediss://, are KvException::CONFIG naming ephpm.server
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_under_valgrind('what it checks is on the Go side (its settings parsed and refused there); the C side only passes the setting, as every test under valgrind does'); ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$probe = stream_socket_server('tcp://127.0.0.1:0');
$port = (int) substr(strrchr(stream_socket_get_name($probe, false), ':'), 1);
fclose($probe);
$sock = ephpm_test_server('--port', (string) $port);
for ($i = 0; $i < 100 && !@fsockopen('127.0.0.1', $port); $i++) {
    usleep(20000);
}
$code = <<<'PHP'
    try {
        var_dump(ephpm_kv_incr('reached'));
    } catch (Ephpm\KvException $e) {
        printf("code %d%s: %s\n", $e->getCode(), $e->getCode() === Ephpm\KvException::CONFIG ? ' (CONFIG)' : '',
            $e->getMessage());
    }
    PHP;
$relative = substr($sock, 1);
$forms = [
    'unix://SOCK' => "unix://$sock", 'unix:SOCK' => "unix:$sock", 'SOCK' => $sock,
    'tcp://127.0.0.1:PORT' => "tcp://127.0.0.1:$port", '127.0.0.1:PORT' => "127.0.0.1:$port",
    'unix://RELATIVE' => "unix://$relative", 'unix:RELATIVE' => "unix:$relative", 'RELATIVE' => $relative,
    'tcp://127.0.0.1' => 'tcp://127.0.0.1', 'tcp:127.0.0.1:PORT' => "tcp:127.0.0.1:$port",
    'redis://127.0.0.1:PORT' => "redis://127.0.0.1:$port", 'http://127.0.0.1:PORT' => "http://127.0.0.1:$port",
];
foreach ($forms as $label => $server) {
    echo "$label => ", str_replace($server, $label, ephpm_child($server, $code)), "\n";
}
// TLS settings are for rediss:// only: given with another address they
// would do nothing, so they are refused.
echo 'unix://SOCK with ephpm.server_tls_ca => ', str_replace($sock, 'SOCK',
    ephpm_child("unix://$sock", $code, ['ephpm.server_tls_ca' => '/etc/ssl/certs/ca-certificates.crt'])), "\n";
?>
--EXPECT--
unix://SOCK => int(1)
unix:SOCK => int(2)
SOCK => int(3)
tcp://127.0.0.1:PORT => int(4)
127.0.0.1:PORT => int(5)
unix://RELATIVE => code 9 (CONFIG): ephpm-kv: the library refused its configuration: ephpm.server "unix://RELATIVE": unix:// takes an absolute path, so it has three slashes (unix:///run/ephpm-kv.sock); use unix:///path/to.sock (or unix:/path/to.sock, or the bare /path/to.sock) or tcp://host:port (or host:port)
unix:RELATIVE => code 9 (CONFIG): ephpm-kv: the library refused its configuration: ephpm.server "unix:RELATIVE": a unix socket path must be absolute; use unix:///path/to.sock (or unix:/path/to.sock, or the bare /path/to.sock) or tcp://host:port (or host:port)
RELATIVE => code 9 (CONFIG): ephpm-kv: the library refused its configuration: ephpm.server "RELATIVE": not an address (a unix socket path must be absolute); use unix:///path/to.sock (or unix:/path/to.sock, or the bare /path/to.sock) or tcp://host:port (or host:port)
tcp://127.0.0.1 => code 9 (CONFIG): ephpm-kv: the library refused its configuration: ephpm.server "tcp://127.0.0.1": expected host:port (address 127.0.0.1: missing port in address); use unix:///path/to.sock (or unix:/path/to.sock, or the bare /path/to.sock) or tcp://host:port (or host:port)
tcp:127.0.0.1:PORT => code 9 (CONFIG): ephpm-kv: the library refused its configuration: ephpm.server "tcp:127.0.0.1:PORT": tcp addresses are written tcp://host:port; use unix:///path/to.sock (or unix:/path/to.sock, or the bare /path/to.sock) or tcp://host:port (or host:port)
redis://127.0.0.1:PORT => int(6)
http://127.0.0.1:PORT => code 9 (CONFIG): ephpm-kv: the library refused its configuration: ephpm.server "http://127.0.0.1:PORT": unknown scheme "http"; use unix:///path/to.sock (or unix:/path/to.sock, or the bare /path/to.sock) or tcp://host:port (or host:port)
unix://SOCK with ephpm.server_tls_ca => code 9 (CONFIG): ephpm-kv: the library refused its configuration: ephpm.server "unix://SOCK": TLS settings (ephpm.server_tls_*) are given but the address is not rediss://host:port
