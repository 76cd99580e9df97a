<?php
// A stand-in for WP-CLI, which Debian does not package: the calls
// php/wordpress/ephpm-status.php makes of it, each printing what the real one
// would show (status_child.php loads it for the `wp ephpm status` checks).
namespace {
    define('WP_CLI', true);

    final class WP_CLI
    {
        /** @var array<string, string|callable> name => what add_command() was given */
        public static array $commands = [];

        public static function add_command(string $name, $callable): void
        {
            self::$commands[$name] = $callable;
        }

        public static function warning(string $message): void
        {
            fwrite(STDOUT, "Warning: $message\n");
        }

        public static function error(string $message): void
        {
            fwrite(STDOUT, "Error: $message\n");
            exit(1);
        }

        public static function print_value($value, array $assoc_args = []): void
        {
            echo ($assoc_args['format'] ?? '') === 'json' ? json_encode($value) : var_export($value, true), "\n";
        }
    }
}

namespace WP_CLI\Utils {
    /** One line per item, its fields tab-separated; json as WP-CLI prints it. */
    function format_items(string $format, array $items, array $fields): void
    {
        if ($format === 'json') {
            echo json_encode($items), "\n";
            return;
        }
        echo implode("\t", $fields), "\n";
        foreach ($items as $item) {
            echo implode("\t", array_map(static fn (string $f): string => (string) $item[$f], $fields)), "\n";
        }
    }
}
