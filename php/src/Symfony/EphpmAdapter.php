<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Symfony;

use Ephpm\KvException;
use Symfony\Component\Cache\Adapter\AbstractAdapter;
use Symfony\Component\Cache\CacheItem;
use Symfony\Component\Cache\Exception\CacheException;
use Symfony\Component\Cache\Exception\InvalidArgumentException;
use Symfony\Component\Cache\Marshaller\DefaultMarshaller;
use Symfony\Component\Cache\Marshaller\MarshallerInterface;

/**
 * Symfony Cache (5.4) pool on ephpm-kv, an AbstractAdapter as ApcuAdapter is:
 * Symfony's deferred saves, get() with a callback and early expiration (beta),
 * metadata and logging all come from AbstractAdapter; this class only stores.
 *
 * Keys: "sf-cache:<namespace>:<generation>:<key>", so the pool never meets the
 * other bridges' keys (sf-lock:, psr16:, ephpm:laravel:, wp:) or raw ephpm_kv_*
 * use that does not pick this prefix, and two namespaces never meet. A key
 * too long for the engine (64 KiB with that prefix) is hashed by
 * AbstractAdapter ($maxIdLength), as other adapters do with their limits.
 * Keys are checked against PSR-6's reserved characters on every call, also
 * when assert() is off (Symfony 5.4 checks them only in assert()).
 *
 * Values go through the MarshallerInterface (DefaultMarshaller by default: it
 * uses igbinary when loaded, so every process sharing a pool needs the same
 * igbinary setting). Lifetimes are the engine's TTLs: 0 is no expiry; an item
 * whose expiry has passed is deleted by commit(); a lifetime over the engine's
 * 100 years is refused (save() returns false and logs), never shortened.
 *
 * clear(): the engine cannot list or delete keys by prefix, so clear() deletes
 * nothing. It increments the namespace's generation counter
 * ("sf-cache:<namespace>:gen", one atomic ephpm_kv_incr), and every later call,
 * in any process sharing the store, works under the new generation: the old
 * items are unreachable at once. What it costs: they stay in the store,
 * holding memory, until their lifetime ends; items saved without a lifetime
 * stay until the store is flushed or restarted, and the shared segment evicts
 * nothing live (a full store fails saves with KvException::FULL, logged). Give
 * the pool a $defaultLifetime if it is cleared often. Each operation also
 * costs one ephpm_kv_get (the generation) before its own work. clear($prefix)
 * with a prefix cannot drop only the keys starting with it: it clears the
 * whole namespace (more than asked, never less: no stale item survives).
 * Other namespaces keep their items. The counter starts at a random number,
 * not 0, so a counter that vanished (deleted, evicted by a Redis, or flushed
 * while a process still wrote under the generation it had read) never
 * restarts on a generation still holding items from before a clear().
 * A counter overwritten with something
 * other than a count (raw use of the key) makes every call fail, logged,
 * until it is deleted.
 *
 * Store failures (Ephpm\KvException: full, value too large, server
 * unreachable) are handled as Symfony adapters handle theirs: AbstractAdapter
 * logs them (CacheItem::log, to the logger given with setLogger()) and
 * getItem() answers a miss, save()/commit() false, clear()/deleteItem() false.
 * A value the store refuses (full, too large, lifetime too long) also deletes
 * the key's old value, which would be stale from then on.
 */
class EphpmAdapter extends AbstractAdapter
{
    /** The engine's longest TTL (100 years, EPHPM_KV_MAX_TTL_SECONDS). */
    public const MAX_TTL = 3153600000;

    /** The engine's longest key (kv.MaxKeySize). */
    private const MAX_KEY = 65536;

    /** Room for the generation (a positive int64) and its ':' in a key. */
    private const GEN_ROOM = 20;

    /**
     * A generation counter starts at a random point of [2^32, 2^53], never at 0:
     * when it vanishes (a raw delete, a Redis evicting it, ephpm_kv_flush()
     * while a process still writes under the generation it read) and starts
     * again, it does not land on a generation whose items outlived a clear().
     */
    private const GEN_FLOOR = 1 << 32;
    private const GEN_CEIL = 1 << 53;

    private MarshallerInterface $marshaller;
    private string $base;

    /**
     * @param string $namespace       separates pools sharing one store (PSR-6 key characters only)
     * @param int    $defaultLifetime seconds for items without their own expiry; 0 is no expiry
     */
    public function __construct(string $namespace = '', int $defaultLifetime = 0, ?MarshallerInterface $marshaller = null)
    {
        if (!\extension_loaded('ephpm')) {
            throw new CacheException('The ephpm extension is required (extension=ephpm.so).');
        }
        if ($defaultLifetime < 0 || $defaultLifetime > self::MAX_TTL) {
            throw new InvalidArgumentException(sprintf('Default lifetime %d is outside 0..%d seconds.', $defaultLifetime, self::MAX_TTL));
        }
        if ($namespace !== '') {
            CacheItem::validateKey($namespace);
        }
        $this->base = 'sf-cache:' . $namespace . ':';
        // ids longer than this are hashed by AbstractAdapter::getId()
        $this->maxIdLength = self::MAX_KEY - \strlen($this->base) - self::GEN_ROOM;
        if ($this->maxIdLength < 64) {
            throw new InvalidArgumentException(sprintf('Namespace must be %d chars max, %d given.', self::MAX_KEY - 64 - 10 - self::GEN_ROOM, \strlen($namespace)));
        }
        // The namespace lives in $base, not in Symfony's id prefix.
        parent::__construct('', $defaultLifetime);
        $this->marshaller = $marshaller ?? new DefaultMarshaller();
    }

    /**
     * Symfony 5.4 validates keys only inside assert(): check them always, as
     * PSR-6 requires an InvalidArgumentException for a reserved character.
     *
     * @internal
     */
    protected function getId($key): string
    {
        CacheItem::validateKey($key);

        return parent::getId($key);
    }

    protected function doFetch(array $ids): iterable
    {
        $prefix = $this->prefix();
        $names = [];
        foreach ($ids as $id) {
            $names[] = $prefix . $id;
        }
        $raw = [];
        $found = ephpm_kv_get_multi($names); // one call into the store for all
        foreach ($ids as $id) {
            if (isset($found[$prefix . $id])) {
                $raw[$id] = $found[$prefix . $id];
            }
        }

        return $this->unmarshallAll($raw);
    }

    /** Lazily, as RedisTrait: a value that cannot be unmarshalled is a logged miss, the others still hit. */
    private function unmarshallAll(array $raw): \Generator
    {
        foreach ($raw as $id => $value) {
            yield $id => $this->marshaller->unmarshall($value);
        }
    }

    protected function doHave(string $id): bool
    {
        return ephpm_kv_exists($this->prefix() . $id);
    }

    protected function doClear(string $namespace): bool
    {
        // $namespace is Symfony's prefix argument: all we can drop is the whole namespace.
        if (ephpm_kv_incr($this->base . 'gen') < self::GEN_FLOOR) {
            // the counter was missing (or from before random starts): leave the small numbers
            ephpm_kv_incr($this->base . 'gen', random_int(self::GEN_FLOOR, self::GEN_CEIL));
        }

        return true;
    }

    protected function doDelete(array $ids): bool
    {
        $prefix = $this->prefix();
        foreach ($ids as $id) {
            ephpm_kv_del($prefix . $id);
        }

        return true;
    }

    protected function doSave(array $values, int $lifetime): array|bool
    {
        if (!$values = $this->marshaller->marshall($values, $failed)) {
            return $failed;
        }
        $prefix = $this->prefix();
        if ($lifetime > self::MAX_TTL) {
            foreach ($values as $id => $value) {
                ephpm_kv_del($prefix . $id); // the old value is stale now
            }
            throw new InvalidArgumentException(sprintf('Lifetime %d s is over the store\'s maximum of %d s.', $lifetime, self::MAX_TTL));
        }
        foreach ($values as $id => $value) {
            try {
                ephpm_kv_set($prefix . $id, $value, $lifetime, true); // cache: evictable, never a lock's room
            } catch (KvException $e) {
                // Refused by a store that answered: drop the old value, stale from now on.
                // AbstractAdapter::commit() logs $e and retries the other items one by one.
                if ($e->getCode() === KvException::FULL || $e->getCode() === KvException::VALUE_TOO_LARGE) {
                    try {
                        ephpm_kv_del($prefix . $id);
                    } catch (KvException $ignored) {
                    }
                }
                throw $e;
            }
        }

        return $failed;
    }

    /** The current generation's key prefix, read on each call so a clear() in any process is seen. */
    private function prefix(): string
    {
        $gen = ephpm_kv_get($this->base . 'gen');
        if ($gen === null) {
            $start = (string) random_int(self::GEN_FLOOR, self::GEN_CEIL);
            $gen = ephpm_kv_setnx($this->base . 'gen', $start) ? $start : (ephpm_kv_get($this->base . 'gen') ?? $start);
        }
        if ($gen === '' || \strlen($gen) >= self::GEN_ROOM || strspn($gen, '0123456789') !== \strlen($gen)) {
            // Overwritten by someone else: refuse (logged by AbstractAdapter) rather than build keys from it.
            throw new CacheException(sprintf('The generation counter "%sgen" holds no count: delete it to reset the pool.', $this->base));
        }

        return $this->base . $gen . ':';
    }
}
