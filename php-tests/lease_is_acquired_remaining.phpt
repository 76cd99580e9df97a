--TEST--
ReadWriteLock and Semaphore: isAcquired() and remaining() read the holder's expiry (never extend it), false and 0.0 once lost or released
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_on_etcd("its point is a 0.3 s lease's remaining() and a plain expire's ttl; etcd's leases are whole seconds and a plain expire acts on the name's guard (Go's conformance LeaseTTL covers etcd)"); ?>
--FILE--
<?php
declare(strict_types=1);
require_once __DIR__ . '/lease.inc';
ephpm_kv_flush();
$holders = [
    'reader' => fn (string $n, float $ttl) => Ephpm\ReadWriteLock::read($n, $ttl),
    'writer' => fn (string $n, float $ttl) => Ephpm\ReadWriteLock::write($n, $ttl),
    'permit' => fn (string $n, float $ttl) => Ephpm\Semaphore::acquire($n, 2, $ttl),
];
foreach ($holders as $what => $take) {
    // A live holder: true, and the seconds left of its own ttl.
    $h = $take("$what-live", 0.3);
    $left = $h->remaining();
    echo $what, ': live ', json_encode([$h->isAcquired(), $left > 0.2 && $left <= 0.3]), "\n";
    // Polled past its ttl, it is lost: neither call renews it.
    usleep(350000);
    echo $what, ': expired ', json_encode([$h->isAcquired(), $h->remaining()], JSON_PRESERVE_ZERO_FRACTION), "\n";

    // A read: a plain expire shortened the key to 2 s; the holder's own
    // lease is 30 s, and reading it leaves the key's ttl at 2 s (a renewal
    // would have moved it back to the holder's).
    $h = $take("$what-read", 30);
    ephpm_kv_expire("$what-read", 2);
    $a = $h->isAcquired();
    $r = $h->remaining();
    $ttl = ephpm_kv_ttl("$what-read");
    echo $what, ': read ', json_encode([$a, $r > 29 && $r <= 30, $ttl > 1 && $ttl <= 2]), "\n";

    // Released, or its name replaced by a plain value: lost.
    $h->release();
    echo $what, ': released ', json_encode([$h->isAcquired(), $h->remaining()], JSON_PRESERVE_ZERO_FRACTION), "\n";
    $h = $take("$what-replaced", 30);
    ephpm_kv_set("$what-replaced", 'plain');
    echo $what, ': replaced ', json_encode([$h->isAcquired(), $h->remaining()], JSON_PRESERVE_ZERO_FRACTION), "\n";
}
// A second holder's reads leave the first's lease as it was.
$a = Ephpm\Semaphore::acquire('pair', 2, 0.3);
$b = Ephpm\Semaphore::acquire('pair', 2, 30);
for ($i = 0; $i < 5; $i++) {
    $b->isAcquired();
    $a->isAcquired();
}
usleep(350000);
var_dump($a->isAcquired(), $b->isAcquired(), Ephpm\Semaphore::holders('pair'));
?>
--EXPECT--
reader: live [true,true]
reader: expired [false,0.0]
reader: read [true,true,true]
reader: released [false,0.0]
reader: replaced [false,0.0]
writer: live [true,true]
writer: expired [false,0.0]
writer: read [true,true,true]
writer: released [false,0.0]
writer: replaced [false,0.0]
permit: live [true,true]
permit: expired [false,0.0]
permit: read [true,true,true]
permit: released [false,0.0]
permit: replaced [false,0.0]
bool(false)
bool(true)
int(1)
