--TEST--
Invalid ephpm.shm_size and ephpm.shm_name values are refused at startup with a warning, and the defaults apply
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('its --INI-- sets the engine'); ?>
--INI--
ephpm.shm_size=1000
ephpm.shm_name=noslash
--FILE--
<?php
require __DIR__ . '/server.inc';
var_dump(ini_get('ephpm.shm_size'), ini_get('ephpm.shm_name'));
var_dump(ini_set('ephpm.shm_size', '0'), ini_set('ephpm.shm_name', '/x')); // PHP_INI_SYSTEM
ob_start();
phpinfo(INFO_MODULES);
preg_match('/^Shared segment => (.*)$/m', ob_get_clean(), $m);
echo $m[1], "\n";
foreach (['ephpm.shm_size' => ['-1', '1048575', '12abc', '200000G', ''], 'ephpm.shm_name' => ['/a/b', '/', 'a/', '/.', '/..', '/' . str_repeat('n', 255)]] as $setting => $values) {
    foreach ($values as $value) {
        $out = ephpm_child('', "echo ' -> ', ini_get('$setting');", [$setting => $value]);
        echo preg_replace('/\s+/', ' ', str_replace(' in Unknown on line 0', '', $out)), "\n";
    }
}
// (shm_size=0: the name is checked, no segment is made)
echo ephpm_child('', "echo ini_get('ephpm.shm_name');", ['ephpm.shm_size' => '0', 'ephpm.shm_name' => '/' . str_repeat('n', 254)])
    === '/' . str_repeat('n', 254) ? "longest name accepted\n" : "refused\n";
echo ephpm_child('', "echo ini_get('ephpm.shm_size');", ['ephpm.shm_size' => '1M']), "\n";
?>
--EXPECTF--
Warning: PHP Startup: Invalid "ephpm.shm_size" setting: must be 0 (off) or from 1048576 to 140737488355328 bytes in Unknown on line 0

Warning: PHP Startup: Invalid "ephpm.shm_name" setting "noslash": must be empty or one '/' followed by 1 to 254 characters, none of them '/', and not "." or ".." (e.g. "/ephpm") in Unknown on line 0
string(3) "64M"
string(0) ""
bool(false)
bool(false)
67108864 bytes, anonymous (shared with the processes forked from this one)
Warning: PHP Startup: Invalid "ephpm.shm_size" setting: must be 0 (off) or from 1048576 to 140737488355328 bytes -> 64M
Warning: PHP Startup: Invalid "ephpm.shm_size" setting: must be 0 (off) or from 1048576 to 140737488355328 bytes -> 64M
Warning: PHP Startup: Invalid "ephpm.shm_size" setting "12abc": not a byte size such as "64M" -> 64M
Warning: PHP Startup: Invalid "ephpm.shm_size" setting: must be 0 (off) or from 1048576 to 140737488355328 bytes -> 64M
Warning: PHP Startup: Invalid "ephpm.shm_size" setting "": not a byte size such as "64M" -> 64M
Warning: PHP Startup: Invalid "ephpm.shm_name" setting "/a/b": must be empty or one '/' followed by 1 to 254 characters, none of them '/', and not "." or ".." (e.g. "/ephpm") ->
Warning: PHP Startup: Invalid "ephpm.shm_name" setting "/": must be empty or one '/' followed by 1 to 254 characters, none of them '/', and not "." or ".." (e.g. "/ephpm") ->
Warning: PHP Startup: Invalid "ephpm.shm_name" setting "a/": must be empty or one '/' followed by 1 to 254 characters, none of them '/', and not "." or ".." (e.g. "/ephpm") ->
Warning: PHP Startup: Invalid "ephpm.shm_name" setting "/.": must be empty or one '/' followed by 1 to 254 characters, none of them '/', and not "." or ".." (e.g. "/ephpm") ->
Warning: PHP Startup: Invalid "ephpm.shm_name" setting "/..": must be empty or one '/' followed by 1 to 254 characters, none of them '/', and not "." or ".." (e.g. "/ephpm") ->
Warning: PHP Startup: Invalid "ephpm.shm_name" setting "/%s": must be empty or one '/' followed by 1 to 254 characters, none of them '/', and not "." or ".." (e.g. "/ephpm") ->
longest name accepted
1M
