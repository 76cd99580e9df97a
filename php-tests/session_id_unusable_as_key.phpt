--TEST--
A session id from a cookie too long to be a key is treated as invalid (a new id is issued), never an exception, in strict mode or not
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
// session_lock:<sid> must fit in 64 KiB: 65523 characters is the longest id.
foreach ([0, 1] as $strict) {
    foreach ([65523, 65524, 70000, 1 << 20] as $len) {
        echo "strict=$strict, id of $len: ", ephpm_child('', <<<PHP
            \$_COOKIE[session_name()] = \$sent = str_repeat('a', $len);
            \$ok = session_start();
            \$_SESSION['n'] = 1;
            \$id = session_id();
            session_write_close();
            echo 'start ', var_export(\$ok, true), ', ', \$id === \$sent ? 'kept' : 'new id of ' . strlen(\$id),
                ', data ', ephpm_kv_get("session:\$id");
            PHP, ['session.save_handler' => 'ephpm', 'session.use_strict_mode' => $strict,
                  'session.sid_length' => 32]), "\n";
    }
}
?>
--EXPECT--
strict=0, id of 65523: start true, kept, data n|i:1;
strict=0, id of 65524: start true, new id of 32, data n|i:1;
strict=0, id of 70000: start true, new id of 32, data n|i:1;
strict=0, id of 1048576: start true, new id of 32, data n|i:1;
strict=1, id of 65523: start true, new id of 32, data n|i:1;
strict=1, id of 65524: start true, new id of 32, data n|i:1;
strict=1, id of 70000: start true, new id of 32, data n|i:1;
strict=1, id of 1048576: start true, new id of 32, data n|i:1;
