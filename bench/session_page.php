<?php
// The page bench/sessions.sh serves through nginx and php-fpm: one locked
// session read and write per request, the counter echoed so the client can
// check that no increment was lost.
session_start();
$_SESSION['n'] = ($_SESSION['n'] ?? 0) + 1;
echo $_SESSION['n'];
