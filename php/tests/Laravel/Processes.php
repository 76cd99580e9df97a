<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Laravel;

/**
 * Runs PHP worker scripts as separate processes on the same store as this
 * one: the same extension and ephpm.* settings. In map mode (the in-process
 * map) there is nothing to share, and the anonymous shared segment is only
 * inherited by forks, so multi-process tests need a server or a named segment
 * (build/phpunit-modes.sh sets ephpm.shm_name in shm mode).
 */
final class Processes
{
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

    /** @return list<string> the php command line for a worker script */
    public static function command(string $script, string ...$args): array
    {
        $so = getenv('EPHPM_EXT') ?: getenv('EPHPM_SO') ?: dirname(__DIR__, 3) . '/build/ephpm.so';
        $cmd = [PHP_BINARY, '-d', 'extension=' . $so];
        foreach (['ephpm.shm_size', 'ephpm.shm_name', 'ephpm.server', 'ephpm.server_timeout'] as $ini) {
            $cmd[] = '-d';
            $cmd[] = $ini . '=' . ini_get($ini);
        }
        return [...$cmd, $script, ...$args];
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
}
