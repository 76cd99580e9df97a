<?php

declare(strict_types=1);

// The PHP API against a 3-member etcd cluster (ephpm.server=etcd://...):
// locks, their release and fences, across two PHP processes. Run by
// php-tests/etcd/run.sh, which starts the cluster.
$passed = $failed = 0;
function check(string $what, mixed $got, mixed $want): void
{
    global $passed, $failed;
    $ok = $got === $want;
    $ok ? $passed++ : $failed++;
    printf("%s etcd: %s%s\n", $ok ? 'ok  ' : 'FAIL', $what, $ok ? '' : ' (got ' . var_export($got, true) . ', want ' . var_export($want, true) . ')');
}

// Another PHP process on the same cluster: runs $code, prints its result.
function other(string $code): string
{
    $cmd = [PHP_BINARY, '-n', '-d', 'extension=' . $GLOBALS['argv'][1], '-d', 'ephpm.server=' . ini_get('ephpm.server'), '-r', $code];
    $p = proc_open($cmd, [1 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]);
    proc_close($p);
    return trim((string)$out);
}

// Forked before first use, as php-fpm workers are: the etcd client (and
// its goroutines) starts in each process on its first call, so both work.
$pid = pcntl_fork();
if ($pid === 0) {
    exit(ephpm_kv_set('forked', 'child') ? 0 : 1);
}
pcntl_waitpid($pid, $status);
check('a child forked before first use writes', pcntl_wexitstatus($status), 0);
check('its parent reads what it wrote', ephpm_kv_get('forked'), 'child');
ephpm_kv_flush();
check('setnx on a free key', ephpm_kv_setnx('lock:report', 'A', 30), true);
check('setnx on a held key', ephpm_kv_setnx('lock:report', 'B', 30), false);
check('another process sees it held', other('var_export(ephpm_kv_setnx("lock:report", "C", 30));'), 'false');
check('del_if_eq with another token', ephpm_kv_del_if_eq('lock:report', 'B'), false);
check('del_if_eq with the token', ephpm_kv_del_if_eq('lock:report', 'A'), true);
check('another process takes it', other('var_export(ephpm_kv_setnx("lock:report", "C", 30));'), 'true');
check('the holder is the other process', ephpm_kv_get('lock:report'), 'C');
check('a late release does not free it', ephpm_kv_del_if_eq('lock:report', 'A'), false);
$ttl = ephpm_kv_ttl('lock:report');
check('ttl: whole seconds of the 30 s lease', $ttl >= 28 && $ttl <= 30, true);
// A sub-second ttl becomes a lease of the cluster's shortest (1 s here):
// longer than asked, never shorter, and never "no expiry".
check('setnx with 0.2 s', ephpm_kv_setnx('short', 'v', 0.2), true);
$t = ephpm_kv_ttl('short');
check('its ttl is within 1 s', $t >= 0 && $t <= 1, true);
check('it is there after 0.3 s (rounded up)', (usleep(300000) ?? true) && ephpm_kv_exists('short'), true);

$lock = Ephpm\Lock::acquire('job', 10);
check('Lock::acquire', $lock instanceof Ephpm\Lock, true);
check('another process waits 0.3 s and gives up', other('var_export(Ephpm\Lock::acquire("job", 10, 0.3));'), 'NULL');
check('isAcquired', $lock->isAcquired(), true);
check('refresh', $lock->refresh(20), true);
check('remaining after refresh', $lock->remaining() > 10 && $lock->remaining() <= 20, true);
$fence = $lock->fence;
check('release', $lock->release(), true);
$next = (int)other('echo Ephpm\Lock::acquire("job", 10)->fence;');
check('the next holder\'s fence is larger', $next > $fence, true);
check('fence: stale one refused', [ephpm_kv_fence('db', $next), ephpm_kv_fence('db', $fence)], [true, false]);
check('incr creates and counts', [ephpm_kv_incr('n', 5, 60), ephpm_kv_incr('n')], [5, 6]);
check('the other process released its lock at its end', ephpm_kv_exists('job'), false);
ephpm_kv_del('short');
check('stats: the keys under the prefix', ephpm_kv_stats()['keys'], 2); // lock:report, n
ephpm_kv_flush();
printf("etcd: %d passed, %d failed\n", $passed, $failed);
exit($failed ? 1 : 0);
