<?php
// Lock patterns PHP cannot do on its own, each decided in one atomic step in
// the store: a lock that renews itself, read/write locks, a semaphore with
// leased permits, and a rate limiter that is exact at window edges.
declare(strict_types=1);

function show(string $what, mixed $result): void
{
    printf("  %-46s -> %s\n", $what, is_string($result) ? $result : var_export($result, true));
}

ephpm_kv_flush();
echo "A watchdog: a 0.3 s lock kept for 1 s of work, then released:\n";
$job = Ephpm\Lock::acquire('lock:import', ttl: 0.3, autoRenew: true, maxHold: 60);
usleep(1_000_000);
show('still ours after 3x its TTL', $job->isAcquired());
show('someone else tries to take it', Ephpm\Lock::acquire('lock:import', 0.3) !== null);
show('release()', $job->release());

echo "\nRead/write lock: readers share, a writer waits for them:\n";
$r1 = Ephpm\ReadWriteLock::read('report', ttl: 5);
$r2 = Ephpm\ReadWriteLock::read('report', ttl: 5);
show('two readers hold it', $r1 !== null && $r2 !== null);
show('a writer (no wait)', Ephpm\ReadWriteLock::write('report', ttl: 5) !== null);
$r1->release();
$r2->release();
$w = Ephpm\ReadWriteLock::write('report', ttl: 5);
show('readers gone: the writer, fence ' . $w->fence, $w !== null);
show('a reader while it writes', Ephpm\ReadWriteLock::read('report', ttl: 5) !== null);
$w->release();

echo "\nA semaphore of 3 leased permits (each expires on its own if its holder dies):\n";
$held = [];
for ($i = 1; $i <= 4; $i++) {
    $permit = Ephpm\Semaphore::acquire('pdf-render', permits: 3, ttl: 0.5);
    show("request $i asks for a permit", $permit === null ? 'refused' : 'granted, fence ' . $permit->fence);
    $held[] = $permit;
}
show('holders', Ephpm\Semaphore::holders('pdf-render'));
usleep(600_000); // nobody released: the leases ran out
show('0.6 s later, holders', Ephpm\Semaphore::holders('pdf-render'));

echo "\nRate limit 5 per second: 1 call, 4 more 0.9 s later, 5 more 0.15 s after that:\n";
$limiters = [
    'fixed window (incr with a ttl)' => fn(): bool => ephpm_kv_incr('fixed:client42', 1, 1.0) <= 5,
    'ephpm_kv_rate_limit (exact)' => fn(): bool => ephpm_kv_rate_limit('exact:client42', 5, 1.0)['allowed'],
];
$late = array_fill_keys(array_keys($limiters), 0);
foreach ([[0, 1], [900_000, 4], [150_000, 5]] as $step => [$pause, $calls]) {
    usleep($pause);
    foreach ($limiters as $name => $allow) {
        for ($i = 0; $i < $calls; $i++) {
            $admitted = $allow();
            if ($step > 0) {
                $late[$name] += (int) $admitted;
            }
        }
    }
}
foreach ($late as $name => $n) {
    show("$name: admitted within 0.15 s", "$n (limit 5)");
}
