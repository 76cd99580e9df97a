<?php
// The bridge's classes for the suites and their child processes: the copy
// Composer installed when build/phpunit-modes.sh made one
// (build/composer-bridge.sh, EPHPM_BRIDGE_VENDOR), else php/src through
// php/autoload.php. The tests' own classes come from here either way: a
// package's autoload-dev is not installed for its users.
$vendor = getenv('EPHPM_BRIDGE_VENDOR');
if ($vendor === false || $vendor === '') {
    require_once __DIR__ . '/../autoload.php';
    return;
}
$loader = require $vendor . '/autoload.php';
$file = $loader->findFile(Ephpm\Bridge\Symfony\EphpmStore::class);
if ($file === false || !str_starts_with(realpath($file), realpath($vendor) . '/')) {
    fwrite(STDERR, "EPHPM_BRIDGE_VENDOR=$vendor does not hold the bridge (found: " . var_export($file, true) . ")\n");
    exit(1);
}
spl_autoload_register(static function (string $class): void {
    $prefix = 'Ephpm\\Bridge\\Tests\\';
    if (str_starts_with($class, $prefix) && is_file($file = __DIR__ . '/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php')) {
        require $file;
    }
});
