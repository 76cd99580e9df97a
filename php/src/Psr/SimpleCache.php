<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Psr;

use Ephpm\KvException;
use Psr\SimpleCache\CacheInterface;

/**
 * PSR-16 (psr/simple-cache 1.0 to 3.0) on ephpm-kv.
 *
 * Keys: every key is stored as "psr16:<namespace>:<generation>:<key>", so this
 * cache never meets another adapter's keys or raw ephpm_kv_* use, and two
 * namespaces never meet each other.
 *
 * clear(): the engine cannot list or delete keys by prefix, so clear() does not
 * delete anything: it increments the namespace's generation counter
 * ("psr16:<namespace>:gen", one atomic ephpm_kv_incr), and every later call, in
 * any process sharing the store, reads and writes under the new generation. The
 * old entries become unreachable at once and give their memory back only when
 * their TTL runs out: give the cache a $defaultTtl (or pass TTLs) if it may be
 * cleared often, since the shared segment never evicts a live entry. Each call
 * therefore costs one extra ephpm_kv_get (the generation) before its own work.
 * The counter starts at a random number, not 0, so a counter that vanished
 * (deleted, evicted by a Redis, or flushed while a process still wrote under
 * the generation it had read) never restarts on a generation still holding
 * items from before a clear().
 * A clear() racing a set() either comes after it (the value is gone) or before
 * it (the value stays): the generation is read once per call.
 *
 * Values are serialize()d, so false, null, arrays and objects come back as they
 * were stored (and an object is a copy). TTL: null means $defaultTtl (0: no
 * expiry); an int of seconds or a DateInterval; 0 or less deletes the key, as
 * PSR-16 requires. A TTL over the engine's 100 years is refused with an
 * InvalidArgumentException, never shortened.
 *
 * Errors: a bad key or TTL throws InvalidArgumentException (a
 * Psr\SimpleCache\InvalidArgumentException); set()/setMultiple() return false
 * when the store refuses the value (full, or over ephpm.max_value_size), and
 * the key's old value, stale from then on, is deleted; any
 * other store failure throws CacheException wrapping the Ephpm\KvException.
 */
final class SimpleCache implements CacheInterface
{
    public const PREFIX = 'psr16:';

    /** The engine's longest TTL (100 years, EPHPM_KV_MAX_TTL_SECONDS in the C headers). */
    public const MAX_TTL = 3153600000;

    /**
     * A generation counter starts at a random point of [2^32, 2^53], never at 0:
     * when it vanishes (a raw delete, a Redis evicting it, ephpm_kv_flush()
     * while a process still writes under the generation it read) and starts
     * again, it does not land on a generation whose items outlived a clear().
     */
    private const GEN_FLOOR = 1 << 32;
    private const GEN_CEIL = 1 << 53;

    /** Characters PSR-16 reserves: a key containing one is refused. */
    private const RESERVED = '{}()/\\@:';

    private readonly string $base;

    /**
     * @param string $namespace  separates caches sharing one store; PSR-16's
     *                           reserved characters are not allowed in it
     * @param int    $defaultTtl seconds for a null TTL; 0 is no expiry
     */
    public function __construct(string $namespace = '', private readonly int $defaultTtl = 0)
    {
        if (strpbrk($namespace, self::RESERVED) !== false) {
            throw new InvalidArgumentException(sprintf('namespace "%s" contains one of the reserved characters %s', $namespace, self::RESERVED));
        }
        if ($defaultTtl < 0 || $defaultTtl > self::MAX_TTL) {
            throw new InvalidArgumentException(sprintf('default TTL %d is outside 0..%d seconds', $defaultTtl, self::MAX_TTL));
        }
        $this->base = self::PREFIX . $namespace . ':';
    }

    public function get($key, mixed $default = null): mixed
    {
        self::checkKey($key);
        $raw = $this->call(static fn (string $k) => ephpm_kv_get($k), $this->prefix() . $key);

        return $raw === null ? $default : self::decode($raw, $default);
    }

    public function set($key, mixed $value, $ttl = null): bool
    {
        self::checkKey($key);
        $seconds = $this->seconds($ttl);

        return $this->store($this->prefix() . $key, $value, $seconds);
    }

    public function delete($key): bool
    {
        self::checkKey($key);
        $this->call(static fn (string $k) => ephpm_kv_del($k), $this->prefix() . $key);

        return true;
    }

    public function clear(): bool
    {
        $gen = $this->call(static fn (string $k) => ephpm_kv_incr($k), $this->base . 'gen');
        if ($gen < self::GEN_FLOOR) {
            // the counter was missing (or from before random starts): leave the small numbers
            $this->call(static fn (string $k) => ephpm_kv_incr($k, random_int(self::GEN_FLOOR, self::GEN_CEIL)), $this->base . 'gen');
        }

        return true;
    }

    public function getMultiple($keys, mixed $default = null): iterable
    {
        $keys = self::keys($keys);
        $prefix = $this->prefix();
        $names = [];
        foreach ($keys as $key) {
            $names[] = $prefix . $key;
        }
        $found = $names === [] ? [] : $this->call(static fn (array $n) => ephpm_kv_get_multi($n), $names);
        $out = [];
        foreach ($keys as $i => $key) {
            $out[$key] = isset($found[$names[$i]]) ? self::decode($found[$names[$i]], $default) : $default;
        }

        return $out;
    }

    public function setMultiple($values, $ttl = null): bool
    {
        if (!is_iterable($values)) {
            throw new InvalidArgumentException(sprintf('setMultiple() needs an array or Traversable, got %s', get_debug_type($values)));
        }
        $pairs = [];
        foreach ($values as $key => $value) {
            if (is_int($key)) {
                $key = (string) $key; // PHP turns array keys like '0' into ints
            }
            self::checkKey($key);
            $pairs[$key] = $value;
        }
        $seconds = $this->seconds($ttl);
        $prefix = $this->prefix();
        $ok = true;
        foreach ($pairs as $key => $value) {
            $ok = $this->store($prefix . $key, $value, $seconds) && $ok;
        }

        return $ok;
    }

    public function deleteMultiple($keys): bool
    {
        $keys = self::keys($keys);
        $prefix = $this->prefix();
        foreach ($keys as $key) {
            $this->call(static fn (string $k) => ephpm_kv_del($k), $prefix . $key);
        }

        return true;
    }

    public function has($key): bool
    {
        self::checkKey($key);

        return $this->call(static fn (string $k) => ephpm_kv_exists($k), $this->prefix() . $key);
    }

    /** The current generation's key prefix: read from the store on each call, so a clear() anywhere is seen. */
    private function prefix(): string
    {
        $key = $this->base . 'gen';
        $gen = $this->call(static fn (string $k) => ephpm_kv_get($k), $key);
        if ($gen === null) {
            $start = (string) random_int(self::GEN_FLOOR, self::GEN_CEIL);
            $gen = $this->call(static fn (string $k) => ephpm_kv_setnx($k, $start), $key)
                ? $start
                : ($this->call(static fn (string $k) => ephpm_kv_get($k), $key) ?? $start);
        }

        return $this->base . $gen . ':';
    }

    /** @param int|null $seconds null: delete (a TTL of 0 or less) */
    private function store(string $key, mixed $value, ?int $seconds): bool
    {
        if ($seconds === null) {
            $this->call(static fn (string $k) => ephpm_kv_del($k), $key);

            return true;
        }
        try {
            return ephpm_kv_set($key, serialize($value), $seconds, true); // cache: evictable
        } catch (\ValueError $e) {
            throw new InvalidArgumentException('cache key refused: ' . $e->getMessage(), 0, $e);
        } catch (KvException $e) {
            if ($e->getCode() === KvException::FULL || $e->getCode() === KvException::VALUE_TOO_LARGE) {
                $this->call(static fn (string $k) => ephpm_kv_del($k), $key); // the old value is stale now

                return false;
            }
            throw self::wrap($e);
        }
    }

    /**
     * The TTL in the engine's seconds (0: no expiry), or null when PSR-16 says
     * the key is to be deleted (0 or negative).
     */
    private function seconds(mixed $ttl): ?int
    {
        if ($ttl === null) {
            return $this->defaultTtl;
        }
        if ($ttl instanceof \DateInterval) {
            $now = new \DateTimeImmutable('@' . time());
            $ttl = $now->add($ttl)->getTimestamp() - $now->getTimestamp();
        } elseif (!is_int($ttl)) {
            throw new InvalidArgumentException(sprintf('a TTL is null, an int or a DateInterval, got %s', get_debug_type($ttl)));
        }
        if ($ttl <= 0) {
            return null;
        }
        if ($ttl > self::MAX_TTL) {
            throw new InvalidArgumentException(sprintf('TTL %d s is over the store\'s maximum of %d s', $ttl, self::MAX_TTL));
        }

        return $ttl;
    }

    /** @return list<string> */
    private static function keys(mixed $keys): array
    {
        if (!is_iterable($keys)) {
            throw new InvalidArgumentException(sprintf('keys are an array or Traversable, got %s', get_debug_type($keys)));
        }
        $out = [];
        foreach ($keys as $key) {
            self::checkKey($key);
            $out[] = $key;
        }

        return $out;
    }

    private static function checkKey(mixed $key): void
    {
        if (!is_string($key)) {
            throw new InvalidArgumentException(sprintf('a cache key is a string, got %s', get_debug_type($key)));
        }
        if ($key === '') {
            throw new InvalidArgumentException('a cache key is not empty');
        }
        if (strpbrk($key, self::RESERVED) !== false) {
            throw new InvalidArgumentException(sprintf('cache key "%s" contains one of the reserved characters %s', $key, self::RESERVED));
        }
    }

    private static function decode(string $raw, mixed $default): mixed
    {
        if ($raw === 'b:0;') {
            return false;
        }
        // A class that is gone (a deploy renamed it) would come back as a
        // __PHP_Incomplete_Class: the callback stops unserialize() instead.
        $callback = ini_set('unserialize_callback_func', self::class . '::classIsGone');
        try {
            $value = @unserialize($raw);
        } catch (\DomainException $e) {
            return $default;
        } finally {
            ini_set('unserialize_callback_func', $callback);
        }

        return $value === false ? $default : $value; // not ours: a miss
    }

    /** @internal unserialize_callback_func while decoding */
    public static function classIsGone(string $class): never
    {
        throw new \DomainException('class not found: ' . $class);
    }

    private function call(\Closure $op, string|array $key): mixed
    {
        try {
            return $op($key);
        } catch (KvException $e) {
            if ($e->getCode() === KvException::KEY_TOO_LARGE) {
                throw new InvalidArgumentException('cache key too long for the store (64 KiB with its prefix)', 0, $e);
            }
            throw self::wrap($e);
        } catch (\ValueError $e) {
            // the extension refuses a key over 64 KiB before the store sees it
            throw new InvalidArgumentException('cache key refused: ' . $e->getMessage(), 0, $e);
        }
    }

    private static function wrap(KvException $e): CacheException
    {
        return new CacheException('ephpm-kv: ' . $e->getMessage(), $e->getCode(), $e);
    }
}
