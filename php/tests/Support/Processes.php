<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Support;

/**
 * Other PHP processes on the same store as this one, for every bridge suite:
 * the same extension and ephpm.* settings. In map mode (the in-process map)
 * there is nothing to share, and the anonymous shared segment is only
 * inherited by forks, so multi-process tests need a server or a named segment
 * (build/phpunit-modes.sh sets ephpm.shm_name in its shm-named mode).
 */
final class Processes
{
    /** what decides which store a process opens, and how */
    private const INI = ['ephpm.library', 'ephpm.shm_size', 'ephpm.shm_name', 'ephpm.server',
        'ephpm.server_password', 'ephpm.server_timeout', 'ephpm.memory_limit', 'ephpm.max_value_size'];

    /** Why this mode cannot share the store with other processes; null when it can. */
    public static function unsharedReason(): ?string
    {
        if ((string) ini_get('ephpm.server') !== '') {
            return null;
        }
        if ((int) ini_get('ephpm.shm_size') === 0) {
            return 'map mode: the store lives in one process';
        }
        if ((string) ini_get('ephpm.shm_name') === '') {
            return 'anonymous shared segment: only forks share it (set ephpm.shm_name)';
        }
        return null;
    }

    /** The extension this process runs (build/phpunit-modes.sh exports its path). */
    public static function extension(): string
    {
        return getenv('EPHPM_EXT') ?: getenv('EPHPM_SO') ?: dirname(__DIR__, 3) . '/build/ephpm.so';
    }

    /**
     * The php command line for $args (a script and its arguments, or -r CODE)
     * with this process's extension and ephpm.* settings.
     *
     * @return list<string>
     */
    public static function php(string ...$args): array
    {
        return self::phpWith([], ...$args);
    }

    /**
     * The same, with the ini settings in $ini (name => value) replacing this
     * process's or added to them.
     *
     * @param array<string, string> $ini
     * @return list<string>
     */
    public static function phpWith(array $ini, string ...$args): array
    {
        $cmd = [PHP_BINARY, '-d', 'extension=' . self::extension()];
        foreach (self::INI as $name) {
            $value = $ini[$name] ?? ini_get($name);
            if ($value !== false && $value !== '') {
                array_push($cmd, '-d', "$name=$value");
            }
        }
        foreach ($ini as $name => $value) {
            if (!\in_array($name, self::INI, true)) {
                array_push($cmd, '-d', "$name=$value");
            }
        }
        return [...$cmd, ...$args];
    }

    /**
     * Starts every command at once and waits for all of them.
     *
     * @param list<list<string>> $commands
     * @return list<array{int, string, string}> exit code, stdout, stderr per command
     */
    public static function runAll(array $commands): array
    {
        $running = [];
        foreach ($commands as $i => $cmd) {
            $proc = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
            if ($proc === false) {
                throw new \RuntimeException('cannot start ' . implode(' ', $cmd));
            }
            $running[$i] = [$proc, $pipes];
        }
        $results = [];
        foreach ($running as $i => [$proc, $pipes]) {
            $out = stream_get_contents($pipes[1]);
            $err = stream_get_contents($pipes[2]);
            fclose($pipes[1]);
            fclose($pipes[2]);
            $results[$i] = [proc_close($proc), (string) $out, (string) $err];
        }
        return $results;
    }

    /** Runs one command; @return array{int, string, string} exit code, stdout, stderr */
    public static function run(array $command): array
    {
        return self::runAll([$command])[0];
    }
}
