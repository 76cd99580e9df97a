--TEST--
Server mode sessions: read with the lock in one step (data of any size), write only while the lock is still ours
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$server = 'unix://' . ephpm_test_server();
$ini = ['session.save_handler' => 'ephpm', 'session.use_cookies' => 0,
    'session.cache_limiter' => '', 'session.use_strict_mode' => 0, 'ephpm.session_lock_ttl' => 0.2];
$id = 'srv' . str_repeat('a', 29);
$open = "session_id('$id'); session_start();";

// Data larger than the first read buffer (512 bytes) comes back whole.
echo ephpm_child($server, "$open \$_SESSION['big'] = str_repeat('xyz', 2000); echo session_write_close() ? 'written' : 'failed';", $ini), "\n";
echo ephpm_child($server, "$open echo strlen(\$_SESSION['big']), ' ', ephpm_kv_get('session_lock:$id') !== null ? 'locked' : 'unlocked';", $ini), "\n";
echo ephpm_child($server, "echo ephpm_kv_exists('session_lock:$id') ? 'lock left behind' : 'lock released';", $ini), "\n";

// The lock expired and another request took it: nothing is written, the
// other request's lock stays, and PHP gets the warning (session_write_close()
// is true all the same in PHP 8.2).
echo ephpm_child($server, "$open \$_SESSION['big'] = 'lost';
    usleep(300000);
    ephpm_kv_setnx('session_lock:$id', 'other', 30);
    var_dump(session_write_close());
    echo error_get_last()['message'], \"\\n\";
    echo ephpm_kv_get('session_lock:$id'), ' ', strlen(unserialize(substr(ephpm_kv_get('session:$id'), 4)));", $ini), "\n";
?>
--EXPECTF--
written
6000 locked
lock released
Warning: session_write_close(): Session %s was not written: its lock expired (ephpm.session_lock_ttl = 0.200 seconds) and another request may hold it now in Command line code on line %d

Warning: session_write_close(): Failed to write session data (ephpm). %s
bool(true)
session_write_close(): Failed to write session data (ephpm). %s
other 6000
