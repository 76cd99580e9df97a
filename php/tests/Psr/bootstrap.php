<?php
// PHPUnit bootstrap for the PSR-16 suite: the bridge's autoloader and Debian's
// php-psr-simple-cache (/usr/share/php/Psr/SimpleCache).
require_once __DIR__ . '/../autoload.php'; // the bridge: Composer's copy or php/src
require '/usr/share/php/Psr/SimpleCache/autoload.php';
if (!extension_loaded('ephpm')) {
    fwrite(STDERR, "the ephpm extension is not loaded: run with php -d extension=build/ephpm.so\n");
    exit(1);
}
