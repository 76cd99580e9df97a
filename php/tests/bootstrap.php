<?php
// PHPUnit bootstrap for the bridge suites: the bridge's PSR-4 autoloader and
// Debian's framework packages (/usr/share/php), each when installed.
require_once __DIR__ . '/autoload.php'; // the bridge: Composer's copy or php/src
foreach (['Symfony/Component/Lock/autoload.php', 'Symfony/Component/Cache/autoload.php'] as $framework) {
    if (is_file('/usr/share/php/' . $framework)) {
        require_once '/usr/share/php/' . $framework;
    }
}
if (!extension_loaded('ephpm')) {
    fwrite(STDERR, "the bridge suites need the extension: php -d extension=build/ephpm.so\n");
    exit(1);
}
