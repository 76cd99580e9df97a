<?php
// PHPUnit bootstrap for the Laravel bridge's suite: Debian's
// php-laravel-framework (Illuminate under /usr/share/php) and the bridge's
// PSR-4 autoloader. The extension is loaded by the command line
// (build/phpunit-modes.sh: php -d extension=build/ephpm.so, plus the mode's ini).
declare(strict_types=1);

if (!extension_loaded('ephpm')) {
    fwrite(STDERR, "the ephpm extension is not loaded: run with php -d extension=build/ephpm.so\n");
    exit(1);
}
require_once 'Illuminate/Cache/autoload.php';
require_once 'Illuminate/Container/autoload.php';
require_once 'Illuminate/Config/autoload.php';
require_once dirname(__DIR__) . '/autoload.php'; // the bridge: Composer's copy or php/src
