<?php
// A worker process for EphpmMultiProcessTest, on the same store as the test
// (Support\Processes::php passes the extension and its ephpm.* settings).
// Usage: php worker.php counter N   N increments of a get-then-put counter, each under lock('counter')->block()
//        php worker.php add KEY      prints 1 when Repository::add(KEY) won, 0 when not
//        php worker.php overrun      takes lock('overrun') for 1 s, overruns it, releases late; prints the release's result
//        php worker.php paused       takes lock('paused') for 1 s and releases it at 0.5 s, but any read of the
//                                    owner pauses 1.5 s after it (as a process descheduled between a get and a
//                                    delete would be); prints the release's result
declare(strict_types=1);

require __DIR__ . '/bootstrap.php';

use Ephpm\Bridge\Laravel\EphpmLock;
use Ephpm\Bridge\Laravel\EphpmStore;
use Illuminate\Cache\Repository;

$cache = new Repository(new EphpmStore('multi'));

switch ($argv[1] ?? '') {
    case 'counter':
        for ($i = 0, $n = (int) $argv[2]; $i < $n; $i++) {
            $cache->lock('counter', 10)->betweenBlockedAttemptsSleepFor(1)->block(20, static function () use ($cache): void {
                $v = (int) $cache->get('n', 0);
                usleep(200); // widen the window a broken lock would let another worker into
                $cache->forever('n', $v + 1);
            });
        }
        break;
    case 'add':
        echo $cache->add($argv[2], getmypid(), 30) ? '1' : '0';
        break;
    case 'overrun':
        $lock = $cache->lock('overrun', 1);
        if (!$lock->get()) {
            fwrite(STDERR, "overrun: lock not acquired\n");
            exit(1);
        }
        echo "acquired\n";
        usleep(2_500_000); // past the 1 s TTL: meanwhile the test takes the lock
        echo $lock->release() ? "released\n" : "refused\n";
        break;
    case 'paused':
        $lock = new class (EphpmStore::NAMESPACE . 'lock:multi:paused', 1) extends EphpmLock {
            protected function getCurrentOwner()
            {
                $owner = parent::getCurrentOwner();
                usleep(1_500_000);
                return $owner;
            }
        };
        if (!$lock->get()) {
            fwrite(STDERR, "paused: lock not acquired\n");
            exit(1);
        }
        echo "acquired\n";
        usleep(500_000);
        echo $lock->release() ? "released\n" : "refused\n";
        break;
    default:
        fwrite(STDERR, "worker.php: unknown command\n");
        exit(2);
}
