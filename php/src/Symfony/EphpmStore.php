<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Symfony;

use Ephpm\KvException;
use Ephpm\ReadWriteLock;
use Ephpm\Semaphore;
use Symfony\Component\Lock\BlockingSharedLockStoreInterface;
use Symfony\Component\Lock\BlockingStoreInterface;
use Symfony\Component\Lock\Exception\InvalidArgumentException;
use Symfony\Component\Lock\Exception\InvalidTtlException;
use Symfony\Component\Lock\Exception\LockAcquiringException;
use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Exception\LockReleasingException;
use Symfony\Component\Lock\Exception\LockStorageException;
use Symfony\Component\Lock\Key;
use Symfony\Component\Lock\Store\ExpiringStoreTrait;

/**
 * Symfony Lock (5.4) store on ephpm-kv, with read (shared) locks: every step
 * that decides who holds a lock is one atomic engine operation, so a holder
 * that overran its TTL can neither release nor extend the lock of whoever took
 * it next.
 *
 * Write (exclusive) locks, save() and waitAndSave():
 *   save              setnx(key, token, ttl); when taken, expire_if_eq (it may be ours)
 *   putOffExpiration  expire_if_eq(key, token, ttl)
 *   delete            del_if_eq(key, token)  (never a plain delete)
 *   exists            get(key) === token
 *   waitAndSave       save, retried with backoff until the lock is free
 * The token is random per Key and kept in the Key's state, so a serialized Key
 * carries its ownership to another process.
 *
 * Read (shared) locks, saveRead() and waitAndSaveRead(): an Ephpm\ReadWriteLock
 * reader lease on the same key, kept in the Key's state. Each reader has its
 * own token and expiry in the key's lease set (a crashed reader holds the
 * others up for its own TTL only); putOffExpiration renews it, delete releases
 * it, exists checks it. Readers and a writer exclude each other atomically in
 * the engine: a reader lease on a key holding a writer's token is refused
 * (Ephpm\KvException WRONG_TYPE: the key holds a plain value), and setnx on a
 * key holding readers finds it taken. The writer stays a plain token value so
 * that write locks keep working as before: a serialized Key, and a lock kept
 * past the end of the request (autoRelease false); a writer's lease could do
 * neither, as Ephpm\ReadWriteLock draws its own token and its leases end with
 * the request. A read lock belongs to the PHP process that took it: the lease
 * object is released with it at the end of the request, or when the Key is
 * destroyed, so such a Key is marked unserializable (UnserializableKeyException,
 * as FlockStore's).
 *
 * Promotion and demotion, as Symfony's SharedLockStoreTestTrait expects: a Key
 * holding a read lock that calls save() gets the write lock only while it is
 * the only reader (otherwise LockConflictedException, and it keeps reading); a
 * Key holding the write lock that calls saveRead() becomes a reader. Each is
 * two steps (release, then take in the other mode), not one: a writer that
 * gets in between wins, and the Key is left with a LockConflictedException and
 * no lock (never with two holders in conflicting modes). Waiting writers have
 * no preference over new readers (as Symfony's RedisStore).
 *
 * Keys are stored under a prefix ('sf-lock:' by default) so they never meet
 * other adapters' or raw ephpm_kv_* keys. Works with every engine (in-process
 * map, shared segment, server, Redis, Redis Cluster, etcd).
 */
class EphpmStore implements BlockingStoreInterface, BlockingSharedLockStoreInterface
{
    use ExpiringStoreTrait;

    private const MAX_TTL = 3153600000; // EPHPM_KV_MAX_TTL_SECONDS (100 years)
    /** the Key's state entry holding its reader lease (an Ephpm\ReadWriteLock) */
    private const READER = __CLASS__ . ':reader';

    private float $initialTtl;
    private string $prefix;

    /**
     * @param float  $initialTtl seconds a lock is held by save() or saveRead() before a refresh (putOffExpiration)
     * @param string $prefix     namespace of the store's keys
     */
    public function __construct(float $initialTtl = 300.0, string $prefix = 'sf-lock:')
    {
        if (!\extension_loaded('ephpm')) {
            throw new InvalidArgumentException('The ephpm extension is required (extension=ephpm.so).');
        }
        if (!($initialTtl > 0) || $initialTtl > self::MAX_TTL) {
            throw new InvalidTtlException(sprintf('"%s()" expects a TTL above 0 and at most %d seconds. Got %s.', __METHOD__, self::MAX_TTL, $initialTtl));
        }
        $this->initialTtl = $initialTtl;
        $this->prefix = $prefix;
    }

    public function save(Key $key): void
    {
        $token = $this->getUniqueToken($key);
        $name = $this->name($key);
        $reader = $this->liveReader($key);
        // The Key's lifetime starts before the call, the entry's TTL within it:
        // the Key expires first, never after the entry.
        $key->reduceLifetime($this->initialTtl);
        if ($reader !== null) {
            // promotion: only the sole reader may write; with others reading
            // the Key keeps its read lock
            if ($this->call(LockAcquiringException::class, $key, fn () => Semaphore::holders($name)) > 1) {
                throw new LockConflictedException();
            }
            $this->releaseReader($key, $reader);
        }
        if (!$this->call(LockAcquiringException::class, $key, fn () => $this->write($name, $token))) {
            if ($reader !== null) {
                // a reader got in between: read again if that is still possible
                $this->read($key, $name);
            }
            throw new LockConflictedException();
        }

        $this->checkNotExpired($key);
    }

    public function saveRead(Key $key): void
    {
        $token = $this->getUniqueToken($key);
        $name = $this->name($key);
        $reader = $this->liveReader($key);
        $key->reduceLifetime($this->initialTtl);
        if ($reader === null || !$this->call(LockAcquiringException::class, $key, fn () => $reader->refresh($this->initialTtl))) {
            // demotion: a write lock this Key holds is given up first (a
            // writer's token is a plain value, which a reader lease may not replace)
            $this->call(LockAcquiringException::class, $key, fn () => $this->unlessWrongType(fn () => ephpm_kv_del_if_eq($name, $token)));
            if (!$this->read($key, $name)) {
                throw new LockConflictedException();
            }
        }

        $this->checkNotExpired($key);
    }

    public function waitAndSave(Key $key): void
    {
        $this->retry($key, fn () => $this->save($key));
    }

    public function waitAndSaveRead(Key $key): void
    {
        $this->retry($key, fn () => $this->saveRead($key));
    }

    public function putOffExpiration(Key $key, float $ttl): void
    {
        if (!($ttl > 0) || $ttl > self::MAX_TTL) {
            throw new InvalidTtlException(sprintf('"%s()" expects a TTL above 0 and at most %d seconds. Got %s.', __METHOD__, self::MAX_TTL, $ttl));
        }
        $token = $this->getUniqueToken($key);
        $name = $this->name($key);
        $key->reduceLifetime($ttl);
        if ($key->hasState(self::READER)) {
            $reader = $key->getState(self::READER);
            // this reader's own lease only; one that ran out is not re-taken
            $renewed = $this->call(LockAcquiringException::class, $key, fn () => $reader->refresh($ttl));
        } else {
            // Only while the live value is our token: a lock that expired and was
            // taken by someone else is theirs, and a lock that expired and is free
            // is not silently re-taken (as RedisStore: the caller learns it lost it).
            $renewed = $this->call(LockAcquiringException::class, $key, fn () => $this->unlessWrongType(fn () => ephpm_kv_expire_if_eq($name, $token, $ttl)));
        }
        if (!$renewed) {
            throw new LockConflictedException();
        }

        $this->checkNotExpired($key);
    }

    public function delete(Key $key): void
    {
        $token = $this->getUniqueToken($key);
        $name = $this->name($key);
        if ($key->hasState(self::READER)) {
            $this->releaseReader($key, $key->getState(self::READER));

            return;
        }
        // compare-and-delete in one step: a holder past its TTL deletes nothing
        // of the next holder's
        $this->call(LockReleasingException::class, $key, fn () => $this->unlessWrongType(fn () => ephpm_kv_del_if_eq($name, $token)));
    }

    public function exists(Key $key): bool
    {
        if ($key->hasState(self::READER)) {
            $reader = $key->getState(self::READER);

            return $this->call(LockStorageException::class, $key, fn () => $reader->isAcquired());
        }
        $token = $this->getUniqueToken($key);
        $name = $this->name($key);

        return $this->call(LockStorageException::class, $key, fn () => ephpm_kv_get($name)) === $token;
    }

    /** setnx, or renewal when the token is already ours; false when someone holds it (readers included). */
    private function write(string $name, string $token): bool
    {
        return $this->unlessWrongType(fn () => ephpm_kv_setnx($name, $token, $this->initialTtl)
            // taken: by us (save twice) renews it, by anyone else is a conflict
            || ephpm_kv_expire_if_eq($name, $token, $this->initialTtl));
    }

    /** Takes a reader lease for the Key; false while a writer holds the key. */
    private function read(Key $key, string $name): bool
    {
        $reader = $this->call(LockAcquiringException::class, $key, fn () => $this->unlessWrongType(fn () => ReadWriteLock::read($name, $this->initialTtl)));
        if (!$reader instanceof ReadWriteLock) {
            return false;
        }
        // the lease belongs to this process (released with the object at the
        // end of the request): another process cannot own it through the Key
        $key->markUnserializable();
        $key->setState(self::READER, $reader);

        return true;
    }

    /** The Key's reader lease while it is live; a lost one is forgotten. */
    private function liveReader(Key $key): ?ReadWriteLock
    {
        if (!$key->hasState(self::READER)) {
            return null;
        }
        $reader = $key->getState(self::READER);
        if ($this->call(LockStorageException::class, $key, fn () => $reader->isAcquired())) {
            return $reader;
        }
        $key->removeState(self::READER);

        return null;
    }

    private function releaseReader(Key $key, ReadWriteLock $reader): void
    {
        $key->removeState(self::READER);
        $this->call(LockReleasingException::class, $key, fn () => $reader->release());
    }

    /**
     * $op's result, or false when the key holds the other kind of value
     * (KvException WRONG_TYPE): a writer's token where a reader lease was
     * asked for, or readers where a token was compared. That is another
     * holder, not a store failure.
     */
    private function unlessWrongType(\Closure $op): mixed
    {
        try {
            return $op();
        } catch (KvException $e) {
            if ($e->getCode() === KvException::WRONG_TYPE) {
                return false;
            }
            throw $e;
        }
    }

    /** Runs $save until it stops conflicting (Ephpm\Lock's backoff: 10 ms doubling to 100 ms). */
    private function retry(Key $key, \Closure $save): void
    {
        // Ephpm\Lock::acquire() waits the same way but draws its own token and
        // releases on destruction; the Key's token must be the stored value,
        // so the wait is this loop.
        $sleep = 10000;
        while (true) {
            // each try starts the Key's lifetime afresh, or the first try's
            // lifetime would expire a lock acquired after a long wait
            $key->resetLifetime();
            try {
                $save();

                return;
            } catch (LockConflictedException $e) {
                usleep($sleep + random_int(0, intdiv($sleep, 10)));
                $sleep = min(2 * $sleep, 100000);
            }
        }
    }

    private function name(Key $key): string
    {
        return $this->prefix . $key;
    }

    private function getUniqueToken(Key $key): string
    {
        if (!$key->hasState(__CLASS__)) {
            $key->setState(__CLASS__, base64_encode(random_bytes(32)));
        }

        return $key->getState(__CLASS__);
    }

    /**
     * Runs one engine call; its failures become Symfony's exceptions: a key the
     * engine refuses (over 64 KiB) an InvalidArgumentException, a store failure
     * (full, server unreachable: Ephpm\KvException) the given Lock exception.
     */
    private function call(string $failure, Key $key, \Closure $op): mixed
    {
        try {
            return $op();
        } catch (\ValueError $e) {
            throw new InvalidArgumentException(sprintf('The "%s" lock cannot be stored: %s', $key, $e->getMessage()), 0, $e);
        } catch (KvException $e) {
            throw new $failure(sprintf('The store failed on the "%s" lock: %s', $key, $e->getMessage()), 0, $e);
        }
    }
}
