--TEST--
A session store failure where no PHP code runs is a warning that says why, and the request goes on: session.auto_start with an unusable library (the script still runs), a write from session_register_shutdown()
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('its children choose their settings'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$session = ['session.save_handler' => 'ephpm', 'session.use_cookies' => '0', 'session.cache_limiter' => '',
    'ephpm.shm_size' => '0'];
echo ephpm_child('', 'echo "script ran\n";',
    $session + ['session.auto_start' => '1', 'ephpm.library' => '/nonexistent/libephpm_kv.so']), "\n";
echo "==\n";
echo ephpm_child('', <<<'PHP'
    session_register_shutdown();
    session_id('shutdownwrite');
    session_start();
    $_SESSION['big'] = str_repeat('x', 2000);
    echo "script ran\n";
    PHP, $session + ['ephpm.max_value_size' => '1K', 'ephpm.compress_min' => '0']), "\n";
?>
--EXPECTF--
Warning: PHP Request Startup: ephpm-kv: cannot load the library /nonexistent/libephpm_kv.so: %s in Unknown on line 0

Warning: PHP Request Startup: ephpm-kv: cannot load the library /nonexistent/libephpm_kv.so: %s in Unknown on line 0

Warning: PHP Request Startup: Failed to read session data: ephpm (path: %s) in Unknown on line 0
script ran
==
script ran

Warning: session_write_close(): ephpm-kv: value is too large: 2%d bytes, max_value_size is 1024; raise ephpm.max_value_size or store smaller values in Unknown on line 0

Warning: session_write_close(): Failed to write session data (ephpm)%s in Unknown on line 0
