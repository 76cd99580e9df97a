<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Laravel;

use Illuminate\Cache\TaggableStore;
use Illuminate\Contracts\Cache\LockProvider;

/**
 * Laravel's cache Store on ephpm-kv, with atomic locks (LockProvider).
 *
 * Keys: NAMESPACE . 'g<generation>:' . prefix . key for cached items, and
 * NAMESPACE . 'lock:' . prefix . name for locks, where prefix is Laravel's
 * (the configured prefix plus ':', as RedisStore and MemcachedStore build
 * it). NAMESPACE keeps this adapter's keys apart from the other bridges' and
 * from raw ephpm_kv_* use that does not start its keys with it.
 *
 * Values are serialized as RedisStore does: numbers are stored as their
 * decimal text (so increment() works on a value put() as an integer, and
 * get() returns numbers as strings, as RedisStore does), everything else with
 * serialize().
 *
 * add() is one setnx, so Repository::add() with a TTL is atomic. (Without a
 * TTL, Laravel 8's Repository::add() does not call the store's add() but a
 * get() then forever(): that gap is Laravel's, not this store's.) Its entry
 * is held, where put()'s is cache: Laravel coordinates with add() (the
 * RateLimiter's timer, a schedule's mutex without locks), and an evicted
 * timer would reset a limit.
 *
 * flush() (`php artisan cache:clear`) drops this prefix's cached items and
 * nothing else: it bumps the prefix's generation counter with one atomic
 * incr, and every later call, in any process, reads and writes under the new
 * generation. Locks are not under a generation, so a flush never frees a
 * held lock (two holders), and sessions, other prefixes and other bridges
 * sharing the store keep their data: RedisStore's and MemcachedStore's
 * flush() empty the whole database instead. The cost: each call reads the
 * generation first (one more ephpm_kv_get), and the old generation's items
 * stay in memory until their TTL; items stored forever() stay until the
 * store is flushed or restarted. The counter starts at a random number, not
 * 0, so a counter that vanished (deleted, evicted by a Redis, or flushed while
 * a process still wrote under the generation it had read) never restarts on a
 * generation still holding items from before a flush.
 */
class EphpmStore extends TaggableStore implements LockProvider
{
    public const NAMESPACE = 'ephpm:laravel:';

    /**
     * A generation counter starts at a random point of [2^32, 2^53], never at 0:
     * when it vanishes (a raw delete, a Redis evicting it, ephpm_kv_flush()
     * while a process still writes under the generation it read) and starts
     * again, it does not land on a generation whose items outlived a flush.
     */
    private const GEN_FLOOR = 1 << 32;
    private const GEN_CEIL = 1 << 53;

    /** Laravel's prefix: the configured one plus ':', or '' */
    protected string $prefix = '';

    public function __construct(string $prefix = '')
    {
        $this->setPrefix($prefix);
    }

    /**
     * @param string $key
     * @return mixed
     */
    public function get($key)
    {
        $value = ephpm_kv_get($this->key($key));

        return $value === null ? null : $this->unserialize($value);
    }

    /**
     * @param array<int, string> $keys
     * @return array<string, mixed>
     */
    public function many(array $keys)
    {
        $names = [];
        foreach ($keys as $i => $key) {
            $names[$i] = $this->key($key);
        }
        $found = ephpm_kv_get_multi(array_values($names)); // one call into the store for all
        $values = [];
        foreach ($keys as $i => $key) {
            $values[$key] = isset($found[$names[$i]]) ? $this->unserialize($found[$names[$i]]) : null;
        }

        return $values;
    }

    /**
     * @param string $key
     * @param mixed $value
     * @param int $seconds
     * @return bool
     */
    public function put($key, $value, $seconds)
    {
        return ephpm_kv_set($this->key($key), $this->serialize($value), $this->ttl($seconds), true); // cache: evictable
    }

    /**
     * Each key is its own set (RedisStore wraps its sets in MULTI; ephpm-kv
     * has no multi-key transaction): a reader may see some keys written and
     * not yet others.
     *
     * @param array<string, mixed> $values
     * @param int $seconds
     * @return bool
     */
    public function putMany(array $values, $seconds)
    {
        $ok = true;
        foreach ($values as $key => $value) {
            $ok = $this->put((string) $key, $value, $seconds) && $ok;
        }

        return $ok;
    }

    /**
     * Stores the value only when no live entry holds the key, in one atomic
     * step (setnx): of several processes adding the same key at once, exactly
     * one gets true.
     *
     * @param string $key
     * @param mixed $value
     * @param int $seconds
     * @return bool
     */
    public function add($key, $value, $seconds)
    {
        return ephpm_kv_setnx($this->key($key), $this->serialize($value), $this->ttl($seconds));
    }

    /**
     * Atomic; a missing key counts from 0 (as RedisStore's incrby). A value
     * that is not an integer throws Ephpm\KvException (NOT_INTEGER), as Redis
     * answers an error.
     *
     * @param string $key
     * @param mixed $value
     * @return int
     */
    public function increment($key, $value = 1)
    {
        return ephpm_kv_incr($this->key($key), (int) $value);
    }

    /**
     * @param string $key
     * @param mixed $value
     * @return int
     */
    public function decrement($key, $value = 1)
    {
        return ephpm_kv_incr($this->key($key), -(int) $value);
    }

    /**
     * @param string $key
     * @param mixed $value
     * @return bool
     */
    public function forever($key, $value)
    {
        return ephpm_kv_set($this->key($key), $this->serialize($value), 0, true); // cache: evictable
    }

    /**
     * @param string $key
     * @return bool
     */
    public function forget($key)
    {
        // As Laravel's Redis, Memcached, APC and array stores: false when
        // there was nothing to forget.
        return ephpm_kv_del($this->key($key)) === 1;
    }

    /**
     * @return bool
     */
    public function flush()
    {
        if (ephpm_kv_incr($this->generationKey()) < self::GEN_FLOOR) {
            // the counter was missing (or from before random starts): leave the small numbers
            ephpm_kv_incr($this->generationKey(), random_int(self::GEN_FLOOR, self::GEN_CEIL));
        }

        return true;
    }

    /**
     * A lock on $name, held for $seconds (0: until released).
     *
     * @param string $name
     * @param int $seconds
     * @param string|null $owner
     * @return EphpmLock
     */
    public function lock($name, $seconds = 0, $owner = null)
    {
        return new EphpmLock(self::NAMESPACE . 'lock:' . $this->prefix . $name, $seconds, $owner);
    }

    /**
     * The lock $owner holds on $name (e.g. in another request or a queued
     * job), so that it can be released there.
     *
     * @param string $name
     * @param string $owner
     * @return EphpmLock
     */
    public function restoreLock($name, $owner)
    {
        return $this->lock($name, 0, $owner);
    }

    /**
     * @return string
     */
    public function getPrefix()
    {
        return $this->prefix;
    }

    /**
     * @param string $prefix
     * @return void
     */
    public function setPrefix($prefix)
    {
        $this->prefix = $prefix !== '' && $prefix !== null ? $prefix . ':' : '';
    }

    /** A cached item's key, under the generation current in the store now (so a flush anywhere is seen). */
    protected function key(string $key): string
    {
        $generation = ephpm_kv_get($this->generationKey());
        if ($generation === null) {
            $start = (string) random_int(self::GEN_FLOOR, self::GEN_CEIL);
            $generation = ephpm_kv_setnx($this->generationKey(), $start)
                ? $start
                : (ephpm_kv_get($this->generationKey()) ?? $start);
        }

        return self::NAMESPACE . 'g' . $generation . ':' . $this->prefix . $key;
    }

    protected function generationKey(): string
    {
        return self::NAMESPACE . 'gen:' . $this->prefix;
    }

    /** ephpm-kv's TTL: 0 never expires, so a non-positive one is 1 second (as RedisStore's max(1, ...)). */
    protected function ttl(mixed $seconds): int
    {
        return max(1, (int) $seconds);
    }

    protected function serialize(mixed $value): string
    {
        return is_numeric($value) && !in_array($value, [INF, -INF], true) && !is_nan((float) $value)
            ? (string) $value
            : serialize($value);
    }

    protected function unserialize(string $value): mixed
    {
        return is_numeric($value) ? $value : unserialize($value);
    }
}
