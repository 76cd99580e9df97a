<?php
// Read a counter from the session, take 50 ms, write it back + 1. Without a
// session lock concurrent requests on one cookie lose increments.
session_start();
$n = $_SESSION['n'] ?? 0;
usleep(50000);
$_SESSION['n'] = $n + 1;
echo session_id(), ' ', getmypid();
