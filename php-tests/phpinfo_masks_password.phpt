--TEST--
phpinfo() and php --ri show ephpm.server_password masked; ini_get() still returns it
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
ephpm.server_password=s3cret-Pa55
--FILE--
<?php
ob_start();
phpinfo(INFO_MODULES);
$info = ob_get_clean();
var_dump(str_contains($info, 's3cret-Pa55'));
preg_match('/^ephpm\.server_password => .*$/m', $info, $m);
echo $m[0], "\n";
preg_match('/^ephpm\.server => .*$/m', $info, $m);
$server = ini_get('ephpm.server') === '' ? 'no value' : ini_get('ephpm.server'); // the server run sets it
var_dump($m[0] === "ephpm.server => $server => $server"); // shown as is: only the password is masked
var_dump(ini_get('ephpm.server_password'));
$cmd = [PHP_BINARY, '-n', '-d', 'extension=' . realpath(__DIR__ . '/../build/ephpm.so'), '-d', 'ephpm.server_password=s3cret-Pa55', '--ri', 'ephpm'];
$p = proc_open($cmd, [1 => ['pipe', 'w']], $pipes);
$ri = stream_get_contents($pipes[1]);
proc_close($p);
var_dump(str_contains($ri, 's3cret-Pa55'), str_contains($ri, 'ephpm.server_password => ********'));
$cmd[5] = 'ephpm.server_password=';
$p = proc_open($cmd, [1 => ['pipe', 'w']], $pipes);
preg_match('/^ephpm\.server_password => .*$/m', stream_get_contents($pipes[1]), $m);
proc_close($p);
echo $m[0], "\n";
?>
--EXPECT--
bool(false)
ephpm.server_password => ******** => ********
bool(true)
string(11) "s3cret-Pa55"
bool(false)
bool(true)
ephpm.server_password => no value => no value
