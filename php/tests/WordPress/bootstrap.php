<?php
// PHPUnit bootstrap for the WordPress object cache drop-in: the least of
// Debian's WordPress 6.1 (/usr/share/wordpress) that loads a drop-in, through
// core's own wp_start_object_cache(), from a wp-content directory holding only
// php/wordpress/object-cache.php. No database, no themes, no plugins.
if (!extension_loaded('ephpm')) {
    fwrite(STDERR, "the ephpm extension is not loaded: run with php -d extension=build/ephpm.so\n");
    exit(1);
}
ini_set('error_log', '/dev/null'); // the drop-in logs the store failures some tests cause
define('ABSPATH', '/usr/share/wordpress/');
define('WPINC', 'wp-includes');
define('WP_DEBUG', false);
// Each test process its own salt: suites sharing a server never meet.
define('WP_CACHE_KEY_SALT', 'test-' . getmypid() . '-' . bin2hex(random_bytes(4)));
$content = sys_get_temp_dir() . '/ephpm-wp-content-' . getmypid();
@mkdir($content);
@unlink("$content/object-cache.php");
symlink(dirname(__DIR__, 2) . '/wordpress/object-cache.php', "$content/object-cache.php");
register_shutdown_function(static function () use ($content): void {
    @unlink("$content/object-cache.php");
    @rmdir($content);
});
define('WP_CONTENT_DIR', $content);
define('EPHPM_WP_DROPIN', dirname(__DIR__, 2) . '/wordpress/object-cache.php');

$GLOBALS['blog_id'] = 1;
$GLOBALS['wp_filter'] = [];
require ABSPATH . WPINC . '/load.php';
require ABSPATH . WPINC . '/plugin.php';
require ABSPATH . WPINC . '/functions.php';
wp_start_object_cache();
require_once __DIR__ . '/../autoload.php'; // the bridge: Composer's copy or php/src
require '/usr/share/php/Psr/SimpleCache/autoload.php'; // one test checks a flush spares the PSR-16 cache
$GLOBALS['ephpm_wp_boot_cache'] = $GLOBALS['wp_object_cache']; // as wp_start_object_cache() left it
