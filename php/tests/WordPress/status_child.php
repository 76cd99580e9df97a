<?php
// A child of StatusTest, on a store of its own (its -d settings): the least of
// Debian's WordPress 6.1 that php/wordpress/ephpm-status.php needs (hooks,
// l10n, formatting, core's per-request object cache), then SCENARIO:
//   health       prints the Site Health result (JSON)
//   fill-health  writes held values until the store refuses one, then the same
//   cli FORMAT   runs `wp ephpm status --format=FORMAT` on a stand-in of WP-CLI
//                (wp_cli_standin.php), after printing what add_command() got
$scenario = $argv[1] ?? 'health';
define('ABSPATH', '/usr/share/wordpress/');
define('WPINC', 'wp-includes');
ini_set('error_log', '/dev/null');
$GLOBALS['wp_filter'] = [];
require_once ABSPATH . WPINC . '/compat.php'; // _is_utf8_charset() and other polyfills (WordPress 6.8's esc_html() needs them)
require ABSPATH . WPINC . '/load.php';
require ABSPATH . WPINC . '/plugin.php';
require ABSPATH . WPINC . '/functions.php';
require ABSPATH . WPINC . '/formatting.php';
require ABSPATH . WPINC . '/kses.php';
require_once ABSPATH . WPINC . '/pomo/translations.php';
require ABSPATH . WPINC . '/l10n.php';
require_once ABSPATH . WPINC . '/class-wp-object-cache.php';
require ABSPATH . WPINC . '/cache.php';
wp_cache_init();
wp_cache_set('alloptions', ['blog_charset' => 'UTF-8'], 'options'); // esc_html() reads the charset from there
$GLOBALS['l10n_unloaded']['ephpm-kv'] = true; // no translation to look for: the English strings
if ($scenario === 'cli') {
    require __DIR__ . '/wp_cli_standin.php';
}
require dirname(__DIR__, 2) . '/wordpress/ephpm-status.php';

if ($scenario === 'fill-health') {
    try {
        for ($i = 0; $i < 100000; $i++) {
            ephpm_kv_set("fill:$i", random_bytes(8192));
        }
    } catch (Ephpm\KvException $e) {
        // full: what the test is about
    }
}
if ($scenario === 'cli') {
    echo 'add_command: ', json_encode(WP_CLI::$commands), "\n";
    $command = WP_CLI::$commands['ephpm'];
    (new $command())->status([], ['format' => $argv[2] ?? 'table']);
    exit(0);
}
$tests = apply_filters('site_status_tests', ['direct' => [], 'async' => []]);
echo json_encode(['registered' => $tests['direct']['ephpm_kv'] ?? null, 'result' => call_user_func($tests['direct']['ephpm_kv']['test'])]), "\n";
