<?php
// A second PHP process for the cross-process checks of EphpmStoreTest,
// started with the parent's ephpm ini (same segment name or server).
// Usage: child.php ACTION ARGS...
require __DIR__ . '/../bootstrap.php';

use Ephpm\Bridge\Symfony\EphpmStore;
use Symfony\Component\Lock\Key;
use Symfony\Component\Lock\LockFactory;

[, $action] = $argv;
switch ($action) {
    case 'hold': // hold RESOURCE SECONDS: save, say "held", hold, release
        $store = new EphpmStore();
        $key = new Key($argv[2]);
        $store->save($key);
        echo "held\n";
        usleep((int) ($argv[3] * 1e6));
        $store->delete($key);
        echo $store->exists($key) ? "still\n" : "released\n";
        break;
    case 'read': // read RESOURCE TTL SECONDS: a read lock with TTL, say "reading" (or "conflict"), hold, release, say "released"
        $store = new EphpmStore((float) $argv[3]);
        $key = new Key($argv[2]);
        try {
            $store->saveRead($key);
        } catch (Symfony\Component\Lock\Exception\LockConflictedException $e) {
            echo "conflict\n";
            break;
        }
        echo "reading\n";
        usleep((int) ($argv[4] * 1e6));
        $store->delete($key);
        echo $store->exists($key) ? "still\n" : "released\n";
        break;
    case 'read-lock': // read-lock RESOURCE LOCK-TTL SECONDS: a LockFactory read lock of LOCK-TTL on a store of 300 s, say "reading", hold, release
        $lock = (new LockFactory(new EphpmStore(300)))->createLock($argv[2], (float) $argv[3]);
        echo $lock->acquireRead() ? "reading\n" : "conflict\n";
        usleep((int) ($argv[4] * 1e6));
        $lock->release();
        break;
    case 'key': // key SERIALIZED-KEY: whether the key (token in its state) holds it here, then release it
        $store = new EphpmStore();
        $key = unserialize(base64_decode($argv[2]));
        echo $store->exists($key) ? "exists\n" : "absent\n";
        $store->delete($key);
        break;
    case 'count': // count RESOURCE COUNTER N: N read-modify-write increments under a blocking Symfony lock
        $factory = new LockFactory(new EphpmStore(10));
        for ($i = 0; $i < (int) $argv[4]; $i++) {
            $lock = $factory->createLock($argv[2], 10);
            $lock->acquire(true);
            $n = (int) ephpm_kv_get($argv[3]);
            usleep(random_int(0, 2000)); // widen the window a missing lock would lose updates in
            ephpm_kv_set($argv[3], (string) ($n + 1));
            $lock->release();
        }
        echo "done\n";
        break;
    case 'overrun': // overrun RESOURCE: take a 0.2 s Symfony lock, say "held", overrun it (0.6 s), release late
        $lock = (new LockFactory(new EphpmStore()))->createLock($argv[2], 0.2, false);
        if (!$lock->acquire()) {
            exit(3);
        }
        echo "held\n";
        usleep(600000);
        $lock->release(); // its Key's token is gone: deletes nothing, and exists() is false, so no exception
        echo "released late\n";
        break;
    default:
        fwrite(STDERR, "unknown action $action\n");
        exit(2);
}
