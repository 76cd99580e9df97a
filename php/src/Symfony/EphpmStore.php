<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Symfony;

use Ephpm\KvException;
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
 * Symfony Lock (5.4) store on ephpm-kv: every step that decides who holds a
 * lock is one atomic engine operation, so a holder that overran its TTL can
 * neither release nor extend the lock of whoever took it next.
 *
 *   save              setnx(key, token, ttl); when taken, expire_if_eq (it may be ours)
 *   putOffExpiration  expire_if_eq(key, token, ttl)
 *   delete            del_if_eq(key, token)  (never a plain delete)
 *   exists            get(key) === token
 *   waitAndSave       save, retried with backoff until the lock is free
 *
 * The token is random per Key and kept in the Key's state, so a serialized Key
 * carries its ownership to another process. Keys are stored under a prefix
 * ('sf-lock:' by default) so they never meet other adapters' or raw ephpm_kv_* keys.
 * Works with every engine (in-process map, shared segment, server).
 *
 * Not a SharedLockStoreInterface: read locks cannot be made atomic with the
 * engine's operations. They need a set of reader tokens, each with its own
 * expiry, that a writer checks empty in the same step as it takes the lock
 * (RedisStore does both in one Lua script on a sorted set). The engine's
 * conditional operations only delete or re-time a value equal to a token;
 * none replaces a value by another (no compare-and-set), none spans two keys,
 * and none lists or counts keys. So: one key holding the reader set can only be
 * updated by get + set, which loses a concurrent reader or writer; a key per
 * reader (its own TTL) cannot be seen by a writer; a reader counter (incr) has
 * one TTL for all readers and an unconditional decrement, so a reader past its
 * TTL would take away another reader's share (the overrun bug, for readers).
 * A set_if_eq (compare-and-set of the whole value) would allow it: the state
 * (writer, readers with deadlines) in one value, changed by CAS retries.
 */
class EphpmStore implements BlockingStoreInterface
{
    use ExpiringStoreTrait;

    private const MAX_TTL = 3153600000; // EPHPM_KV_MAX_TTL_SECONDS (100 years)

    private float $initialTtl;
    private string $prefix;

    /**
     * @param float  $initialTtl seconds a lock is held by save() before a refresh (putOffExpiration)
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

    public function save(Key $key)
    {
        $token = $this->getUniqueToken($key);
        $name = $this->name($key);
        // The Key's lifetime starts before the call, the entry's TTL within it:
        // the Key expires first, never after the entry.
        $key->reduceLifetime($this->initialTtl);
        $ours = $this->call(LockAcquiringException::class, $key, fn () => ephpm_kv_setnx($name, $token, $this->initialTtl)
            // taken: by us (save twice) renews it, by anyone else is a conflict
            || ephpm_kv_expire_if_eq($name, $token, $this->initialTtl));
        if (!$ours) {
            throw new LockConflictedException();
        }

        $this->checkNotExpired($key);
    }

    public function waitAndSave(Key $key)
    {
        // Ephpm\Lock::acquire() waits the same way but draws its own token and
        // releases on destruction; the Key's token must be the stored value,
        // so the wait is this loop (Ephpm\Lock's backoff: 10 ms doubling to 100 ms).
        $sleep = 10000;
        while (true) {
            // each try starts the Key's lifetime afresh, or the first try's
            // lifetime would expire a lock acquired after a long wait
            $key->resetLifetime();
            try {
                $this->save($key);

                return;
            } catch (LockConflictedException $e) {
                usleep($sleep + random_int(0, intdiv($sleep, 10)));
                $sleep = min(2 * $sleep, 100000);
            }
        }
    }

    public function putOffExpiration(Key $key, float $ttl)
    {
        if (!($ttl > 0) || $ttl > self::MAX_TTL) {
            throw new InvalidTtlException(sprintf('"%s()" expects a TTL above 0 and at most %d seconds. Got %s.', __METHOD__, self::MAX_TTL, $ttl));
        }
        $token = $this->getUniqueToken($key);
        $name = $this->name($key);
        $key->reduceLifetime($ttl);
        // Only while the live value is our token: a lock that expired and was
        // taken by someone else is theirs, and a lock that expired and is free
        // is not silently re-taken (as RedisStore: the caller learns it lost it).
        if (!$this->call(LockAcquiringException::class, $key, fn () => ephpm_kv_expire_if_eq($name, $token, $ttl))) {
            throw new LockConflictedException();
        }

        $this->checkNotExpired($key);
    }

    public function delete(Key $key)
    {
        $token = $this->getUniqueToken($key);
        $name = $this->name($key);
        // compare-and-delete in one step: a holder past its TTL deletes nothing
        // of the next holder's
        $this->call(LockReleasingException::class, $key, fn () => ephpm_kv_del_if_eq($name, $token));
    }

    public function exists(Key $key)
    {
        $token = $this->getUniqueToken($key);
        $name = $this->name($key);

        return $this->call(LockStorageException::class, $key, fn () => ephpm_kv_get($name)) === $token;
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
