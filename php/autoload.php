<?php
// PSR-4 for Ephpm\Bridge\ without Composer: the tests run on Debian's
// framework packages (/usr/share/php), which Composer does not know.
spl_autoload_register(static function (string $class): void {
    foreach (['Ephpm\\Bridge\\Tests\\' => __DIR__ . '/tests/', 'Ephpm\\Bridge\\' => __DIR__ . '/src/'] as $prefix => $dir) {
        if (str_starts_with($class, $prefix)) {
            $file = $dir . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
            if (is_file($file)) {
                require $file;
            }
            return;
        }
    }
});
