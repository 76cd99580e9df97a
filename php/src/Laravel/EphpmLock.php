<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Laravel;

use Illuminate\Cache\Lock;

/**
 * Laravel's atomic lock on ephpm-kv. The key's value is the owner token.
 *
 * release() is one compare-and-delete (ephpm_kv_del_if_eq), not Laravel's
 * MemcachedLock get-then-delete: a holder that overran its TTL and releases
 * late finds another owner's token and deletes nothing, where the
 * get-then-delete can read its own token, lose the key to expiry and the next
 * acquirer, then delete the next holder's lock.
 */
class EphpmLock extends Lock
{
    /**
     * @param string $name the full key (EphpmStore::lock() prefixes it)
     * @param int $seconds 0: held until released
     * @param string|null $owner null: a random one (Str::random())
     */
    public function __construct($name, $seconds, $owner = null)
    {
        parent::__construct($name, $seconds, $owner);
    }

    /**
     * @return bool
     */
    public function acquire()
    {
        // Laravel's seconds are whole; a fraction is passed on as it is.
        $seconds = is_numeric($this->seconds) && $this->seconds > 0 ? $this->seconds + 0 : 0;

        return ephpm_kv_setnx($this->name, (string) $this->owner, $seconds);
    }

    /**
     * Deletes the lock only while it still holds this owner's token, in one
     * atomic step.
     *
     * @return bool
     */
    public function release()
    {
        return ephpm_kv_del_if_eq($this->name, (string) $this->owner);
    }

    /**
     * Releases the lock whoever owns it.
     *
     * @return void
     */
    public function forceRelease()
    {
        ephpm_kv_del($this->name);
    }

    /**
     * The token stored under the lock's key; null when no one holds it.
     *
     * @return string|null
     */
    protected function getCurrentOwner()
    {
        return ephpm_kv_get($this->name);
    }
}
