<?php
// The page bench/sessions.sh serves through nginx and php-fpm: one locked
// session read and write per request, the counter echoed so the client can
// check that no increment was lost. ?peek reads the counter without
// counting (read_and_close: no write), for the check after a run.
if (($_SERVER['QUERY_STRING'] ?? '') === 'peek') {
    session_start(['read_and_close' => true]);
    echo $_SESSION['n'] ?? '';
    return;
}
session_start();
$_SESSION['n'] = ($_SESSION['n'] ?? 0) + 1;
echo $_SESSION['n'];
