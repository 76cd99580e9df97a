--TEST--
ephpm.server_tls_verify_peer takes only boolean words: any other (a typo, "enabled") is refused with a warning and verification stays on, never read as 0
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
ephpm.server_tls_verify_peer=enabled
--FILE--
<?php
var_dump(ini_get('ephpm.server_tls_verify_peer'));
?>
--EXPECTF--
Warning: PHP Startup: Invalid "ephpm.server_tls_verify_peer" setting "enabled": must be 1 (verify the server's certificate) or 0 (accept any) in %s
string(1) "1"
