<?php
/**
 * WordPress object cache drop-in on ephpm-kv (WordPress 6.1).
 *
 * Install: copy (or symlink) this file to wp-content/object-cache.php, with the
 * ephpm extension loaded in PHP. Without the extension the file defines
 * nothing, and WordPress falls back to its own per-request cache.
 *
 * Keys. Every persistent entry is stored as
 *   wp:<salt>:<flush generation>:<group, urlencoded>:<group generation>:<blog id or "g">:<key>
 * <salt> is WP_CACHE_KEY_SALT (define it per site when several sites share one
 * store); a key over 1 KiB is replaced by its SHA-256. Global groups use "g"
 * instead of the blog id, so switch_to_blog() changes only the other groups.
 *
 * Flushing. The engine cannot delete by prefix, so wp_cache_flush() increments
 * wp:<salt>:gen and wp_cache_flush_group() wp:<salt>:<flush generation>:ggen:<group>
 * (each one atomic ephpm_kv_incr). Entries of an old generation become
 * unreachable and give their memory back when their TTL runs out (the shared
 * segment never evicts a live entry: prefer expiring entries, or
 * ephpm_kv_flush() from a maintenance script, when flushing often). Nothing
 * outside this site's salt is touched: sessions, locks and other apps on the
 * same store survive a flush. The generations are read once per request (and
 * again after wp_cache_flush_runtime()), so a request that began before another
 * request's flush keeps its view and its writes go to the old generation,
 * where nobody reads them. The counters start at a random number, not 0, so a
 * counter that vanished (deleted, evicted by a Redis, or ephpm_kv_flush() while
 * a request still wrote under the generation it had read) never restarts on a
 * generation still holding entries from before a flush.
 *
 * Values: integers are stored as decimal strings (so wp_cache_incr/decr are one
 * atomic ephpm_kv_incr on the store), everything else serialize()d. Every
 * value read is also kept for the rest of the request (a runtime cache, as
 * core's), and objects are cloned in and out, as core does.
 *
 * Atomicity: add() is ephpm_kv_add (setnx writing cache), so two requests
 * adding one key get one winner. replace() checks and then sets (the engine has no set-if-exists); an
 * incr/decr racing a delete may recreate the key (without its TTL); decr
 * below zero ends at 0 through a compensating incr, so concurrent decrs compose.
 * A non-integer value is incremented by a read-modify-write, as core would.
 *
 * Errors: a store failure (Ephpm\KvException) makes that call a miss or a
 * failed write, never a fatal error (a set the store refuses, too large or
 * with the store full, also deletes the key's old value, which is stale now); the first one of a request is logged with
 * error_log(), and the last is in $wp_object_cache->last_error.
 */

if ( ! extension_loaded( 'ephpm' ) ) {
	return;
}

if ( ! class_exists( 'WP_Object_Cache', false ) ) :

	#[AllowDynamicProperties]
	class WP_Object_Cache {
		/** The engine's longest TTL in seconds (100 years): a longer $expire is capped there. */
		const MAX_TTL = 3153600000;

		/** A key longer than this is stored under its SHA-256 (the store's keys end at 64 KiB). */
		const MAX_KEY = 1024;

		/**
		 * A generation counter starts at a random point of [2^32, 2^53], never at 0:
		 * when it vanishes (a raw delete, a Redis evicting it, ephpm_kv_flush()
		 * while a request still writes under the generation it read) and starts
		 * again, it does not land on a generation whose entries outlived a flush.
		 */
		const GEN_FLOOR = 4294967296;
		const GEN_CEIL  = 9007199254740992;

		/** @var array<string, array<string, mixed>> group => key => value, this request's copies */
		private $cache = array();

		/** Keys get_multiple()'s one store call found missing, for its get()s. */
		private $prefetched_misses = array();

		/** @var array<string, true> */
		protected $global_groups = array();

		/** @var array<string, true> */
		protected $non_persistent_groups = array();

		/** @var string the store prefix of this site, from WP_CACHE_KEY_SALT */
		private $base;

		/** @var string|null the flush generation, read once per request */
		private $generation = null;

		/** @var array<string, string> group => its generation, read once per request */
		private $group_generations = array();

		/** @var int */
		public $blog_id;

		/** @var bool */
		public $multisite;

		public $cache_hits   = 0;
		public $cache_misses = 0;

		/** @var Throwable|null the last store failure */
		public $last_error = null;

		private $logged = false;

		public function __construct() {
			$this->multisite = function_exists( 'is_multisite' ) && is_multisite();
			$this->blog_id   = function_exists( 'get_current_blog_id' ) ? get_current_blog_id() : 1;
			$salt            = defined( 'WP_CACHE_KEY_SALT' ) ? (string) WP_CACHE_KEY_SALT : '';
			$this->base      = 'wp:' . rawurlencode( $salt ) . ':';
		}

		public function add( $key, $data, $group = 'default', $expire = 0 ) {
			if ( function_exists( 'wp_suspend_cache_addition' ) && wp_suspend_cache_addition() ) {
				return false;
			}
			if ( ! $this->is_valid_key( $key ) ) {
				return false;
			}
			$group = $this->group( $group );
			$id    = $this->id( $key, $group );
			if ( $this->runtime_has( $id, $group ) ) {
				return false;
			}
			if ( $this->persistent( $group ) ) {
				// Cache, as set()'s: core adds most of what it caches (options,
				// posts' meta), so a held add would fill the store with the
				// generations flushes leave behind.
				$added = $this->kv( 'ephpm_kv_add', $this->store_key( $key, $group ), $this->encode( $data ), $this->ttl( $expire ), true );
				if ( ! $added ) {
					return false;
				}
			}
			$this->cache[ $group ][ $id ] = is_object( $data ) ? clone $data : $data;
			return true;
		}

		public function add_multiple( array $data, $group = '', $expire = 0 ) {
			$values = array();
			foreach ( $data as $key => $value ) {
				$values[ $key ] = $this->add( $key, $value, $group, $expire );
			}
			return $values;
		}

		public function replace( $key, $data, $group = 'default', $expire = 0 ) {
			if ( ! $this->is_valid_key( $key ) ) {
				return false;
			}
			$group = $this->group( $group );
			$id    = $this->id( $key, $group );
			$found = false;
			$this->get( $key, $group, false, $found );
			if ( ! $found ) {
				return false;
			}
			return $this->set( $key, $data, $group, $expire );
		}

		public function set( $key, $data, $group = 'default', $expire = 0 ) {
			if ( ! $this->is_valid_key( $key ) ) {
				return false;
			}
			$group = $this->group( $group );
			if ( $this->persistent( $group ) ) {
				// Cache: evictable, so a full store drops old entries (an old
				// generation's first, never read again) and never a lock.
				$ok = $this->kv( 'ephpm_kv_set', $this->store_key( $key, $group ), $this->encode( $data ), $this->ttl( $expire ), true );
				if ( ! $ok ) {
					// Refused (too large, store full): the old value would now be stale, so it goes too.
					unset( $this->cache[ $group ][ $this->id( $key, $group ) ] );
					$this->kv( 'ephpm_kv_del', $this->store_key( $key, $group ) );
					return false;
				}
			}
			$this->cache[ $group ][ $this->id( $key, $group ) ] = is_object( $data ) ? clone $data : $data;
			return true;
		}

		public function set_multiple( array $data, $group = '', $expire = 0 ) {
			$values = array();
			foreach ( $data as $key => $value ) {
				$values[ $key ] = $this->set( $key, $value, $group, $expire );
			}
			return $values;
		}

		public function get( $key, $group = 'default', $force = false, &$found = null ) {
			if ( ! $this->is_valid_key( $key ) ) {
				$found = false;
				return false;
			}
			$group = $this->group( $group );
			$id    = $this->id( $key, $group );
			if ( ( ! $force || ! $this->persistent( $group ) ) && $this->runtime_has( $id, $group ) ) {
				$found = true;
				++$this->cache_hits;
				$value = $this->cache[ $group ][ $id ];
				return is_object( $value ) ? clone $value : $value;
			}
			if ( isset( $this->prefetched_misses[ $group ][ $id ] ) ) {
				unset( $this->prefetched_misses[ $group ][ $id ] );
				$found = false;
				++$this->cache_misses;
				return false;
			}
			if ( $this->persistent( $group ) ) {
				$raw = $this->kv( 'ephpm_kv_get', $this->store_key( $key, $group ) );
				if ( is_string( $raw ) ) {
					$value = $this->decode( $raw, $ok );
					if ( $ok ) {
						$found = true;
						++$this->cache_hits;
						$this->cache[ $group ][ $id ] = $value;
						return is_object( $value ) ? clone $value : $value;
					}
				}
				unset( $this->cache[ $group ][ $id ] );
			}
			$found = false;
			++$this->cache_misses;
			return false;
		}

		public function get_multiple( $keys, $group = 'default', $force = false ) {
			$this->prefetch( $keys, $this->group( $group ), $force );
			$values = array();
			foreach ( $keys as $key ) {
				$values[ $key ] = $this->get( $key, $group, false );
			}
			return $values;
		}

		/**
		 * One store call for the keys get_multiple() would each fetch: the
		 * ones found go into the runtime cache (decoded); the others are
		 * marked missing there for this call, so get() asks no more.
		 */
		private function prefetch( $keys, $group, $force ) {
			if ( ! $this->persistent( $group ) ) {
				return;
			}
			$fetch = array();
			foreach ( $keys as $key ) {
				if ( $this->is_valid_key( $key ) && ( $force || ! $this->runtime_has( $this->id( $key, $group ), $group ) ) ) {
					$fetch[] = array( $key, $this->store_key( $key, $group ) );
				}
			}
			if ( ! $fetch ) {
				return;
			}
			$found = $this->kv( 'ephpm_kv_get_multi', array_column( $fetch, 1 ) );
			foreach ( $fetch as list( $key, $store_key ) ) {
				$id = $this->id( $key, $group );
				unset( $this->cache[ $group ][ $id ] );
				if ( is_array( $found ) && isset( $found[ $store_key ] ) ) {
					$value = $this->decode( $found[ $store_key ], $ok );
					if ( $ok ) {
						$this->cache[ $group ][ $id ] = $value;
						continue;
					}
				}
				$this->prefetched_misses[ $group ][ $id ] = true;
			}
		}

		public function delete( $key, $group = 'default', $deprecated = false ) {
			if ( ! $this->is_valid_key( $key ) ) {
				return false;
			}
			$group = $this->group( $group );
			$id    = $this->id( $key, $group );
			$had   = $this->runtime_has( $id, $group );
			unset( $this->cache[ $group ][ $id ] );
			if ( $this->persistent( $group ) ) {
				return $this->kv( 'ephpm_kv_del', $this->store_key( $key, $group ) ) > 0;
			}
			return $had;
		}

		public function delete_multiple( array $keys, $group = '' ) {
			$values = array();
			foreach ( $keys as $key ) {
				$values[ $key ] = $this->delete( $key, $group );
			}
			return $values;
		}

		public function incr( $key, $offset = 1, $group = 'default' ) {
			return $this->add_to( $key, (int) $offset, $group );
		}

		public function decr( $key, $offset = 1, $group = 'default' ) {
			return $this->add_to( $key, -(int) $offset, $group );
		}

		/** Flushes this site's entries (every group, every blog): a new flush generation. */
		public function flush() {
			$this->cache             = array();
			$this->group_generations = array();
			$gen                     = $this->bump( $this->base . 'gen' );
			$this->generation        = null;
			return false !== $gen;
		}

		/** Forgets this request's copies and generations; the store is untouched. */
		public function flush_runtime() {
			$this->cache             = array();
			$this->generation        = null;
			$this->group_generations = array();
			return true;
		}

		/** Flushes one group in every blog: a new generation for the group. */
		public function flush_group( $group ) {
			$group = $this->group( $group );
			unset( $this->cache[ $group ], $this->group_generations[ $group ] );
			if ( ! $this->persistent( $group ) ) {
				return true;
			}
			return false !== $this->bump( $this->base . $this->generation() . ':ggen:' . rawurlencode( $group ) );
		}

		public function add_global_groups( $groups ) {
			$this->global_groups = array_merge( $this->global_groups, array_fill_keys( (array) $groups, true ) );
		}

		public function add_non_persistent_groups( $groups ) {
			$this->non_persistent_groups = array_merge( $this->non_persistent_groups, array_fill_keys( (array) $groups, true ) );
		}

		public function switch_to_blog( $blog_id ) {
			// A single site has one blog: core ignores the switch there too.
			if ( $this->multisite ) {
				$this->blog_id = (int) $blog_id;
			}
		}

		public function reset() {
			// Deprecated since 3.5.0: drops this request's copies of the blog's groups.
			foreach ( array_keys( $this->cache ) as $group ) {
				if ( ! isset( $this->global_groups[ $group ] ) ) {
					unset( $this->cache[ $group ] );
				}
			}
		}

		public function stats() {
			echo '<p>';
			echo "<strong>Cache Hits:</strong> {$this->cache_hits}<br />";
			echo "<strong>Cache Misses:</strong> {$this->cache_misses}<br />";
			echo '<strong>Engine:</strong> ephpm-kv<br />';
			echo '</p>';
		}

		/** Core's rule (6.1): an int, or a string that is not blank. */
		protected function is_valid_key( $key ) {
			if ( is_int( $key ) || ( is_string( $key ) && trim( $key ) !== '' ) ) {
				return true;
			}
			if ( function_exists( '_doing_it_wrong' ) ) {
				$message = is_string( $key )
					? 'Cache key must not be an empty string.'
					: sprintf( 'Cache key must be integer or non-empty string, %s given.', gettype( $key ) );
				_doing_it_wrong( sprintf( '%s::%s', __CLASS__, debug_backtrace( DEBUG_BACKTRACE_IGNORE_ARGS, 2 )[1]['function'] ), $message, '6.1.0' );
			}
			return false;
		}

		private function add_to( $key, $offset, $group ) {
			if ( ! $this->is_valid_key( $key ) ) {
				return false;
			}
			$group = $this->group( $group );
			$id    = $this->id( $key, $group );
			if ( ! $this->persistent( $group ) ) {
				if ( ! $this->runtime_has( $id, $group ) ) {
					return false;
				}
				$value                        = $this->cache[ $group ][ $id ];
				$value                        = max( 0, ( is_numeric( $value ) ? $value : 0 ) + $offset );
				$this->cache[ $group ][ $id ] = $value;
				return $value;
			}
			$store_key = $this->store_key( $key, $group );
			if ( ! $this->kv( 'ephpm_kv_exists', $store_key ) ) {
				unset( $this->cache[ $group ][ $id ] );
				return false;
			}
			try {
				$value = ephpm_kv_incr( $store_key, $offset );
				if ( $value < 0 ) {
					$value = ephpm_kv_incr( $store_key, -$value ); // floor at 0; composes with concurrent decrs
					$value = max( 0, $value );
				}
			} catch ( Ephpm\KvException $e ) {
				if ( Ephpm\KvException::NOT_INTEGER !== $e->getCode() ) {
					$this->failed( $e );
					return false;
				}
				// Not an integer (a float, a numeric string, anything else): as core, in PHP.
				$current = $this->get( $key, $group, true, $found );
				if ( ! $found ) {
					return false;
				}
				$value = max( 0, ( is_numeric( $current ) ? $current : 0 ) + $offset );
				$ttl   = $this->kv( 'ephpm_kv_ttl', $store_key );
				if ( ! $this->kv( 'ephpm_kv_set', $store_key, $this->encode( $value ), is_numeric( $ttl ) && $ttl > 0 ? $ttl : 0 ) ) {
					return false;
				}
			}
			$this->cache[ $group ][ $id ] = $value;
			return $value;
		}

		private function group( $group ) {
			return empty( $group ) ? 'default' : (string) $group; // as core: 0 and '0' too
		}

		/** The key in this request's copies: blog-prefixed unless the group is global (as core). */
		private function id( $key, $group ) {
			return isset( $this->global_groups[ $group ] ) ? (string) $key : $this->blog_id . ':' . $key;
		}

		private function runtime_has( $id, $group ) {
			return isset( $this->cache[ $group ] ) && ( isset( $this->cache[ $group ][ $id ] ) || array_key_exists( $id, $this->cache[ $group ] ) );
		}

		private function persistent( $group ) {
			return ! isset( $this->non_persistent_groups[ $group ] );
		}

		private function generation() {
			if ( null === $this->generation ) {
				$this->generation = $this->counter( $this->base . 'gen' );
			}
			return $this->generation;
		}

		private function store_key( $key, $group ) {
			$gen = $this->generation();
			$g   = rawurlencode( $group );
			if ( ! isset( $this->group_generations[ $group ] ) ) {
				$this->group_generations[ $group ] = $this->counter( $this->base . $gen . ':ggen:' . $g );
			}
			$key = (string) $key;
			if ( strlen( $key ) > self::MAX_KEY ) {
				$key = '#sha256:' . hash( 'sha256', $key );
			}
			$blog = isset( $this->global_groups[ $group ] ) ? 'g' : (string) $this->blog_id;
			return $this->base . $gen . ':' . $g . ':' . $this->group_generations[ $group ] . ':' . $blog . ':' . $key;
		}

		/**
		 * A generation counter's value, started at a random number when missing. A
		 * store failure gives a random one for this request: it reads nothing and
		 * its writes reach nobody.
		 */
		private function counter( $key ) {
			$gen = $this->kv( 'ephpm_kv_get', $key );
			if ( is_string( $gen ) ) {
				return $gen;
			}
			$start = (string) random_int( self::GEN_FLOOR, self::GEN_CEIL );
			if ( null === $gen && true === $this->kv( 'ephpm_kv_setnx', $key, $start ) ) {
				return $start;
			}
			$gen = null === $gen ? $this->kv( 'ephpm_kv_get', $key ) : false;
			return is_string( $gen ) ? $gen : $start;
		}

		/** Increments a generation counter; one that was missing (or from before random starts) jumps past the small numbers. */
		private function bump( $key ) {
			$gen = $this->kv( 'ephpm_kv_incr', $key, 1, 0 );
			if ( false !== $gen && $gen < self::GEN_FLOOR ) {
				$gen = $this->kv( 'ephpm_kv_incr', $key, random_int( self::GEN_FLOOR, self::GEN_CEIL ), 0 );
			}
			return $gen;
		}

		private function ttl( $expire ) {
			$expire = (int) $expire;
			return $expire <= 0 ? 0 : min( $expire, self::MAX_TTL );
		}

		private function encode( $data ) {
			return is_int( $data ) ? (string) $data : serialize( $data );
		}

		private function decode( $raw, &$ok ) {
			$ok = true;
			if ( preg_match( '/\A-?[0-9]+\z/', $raw ) ) {
				return (int) $raw;
			}
			if ( 'b:0;' === $raw ) {
				return false;
			}
			// A class that is gone (an update renamed it) would come back as a
			// __PHP_Incomplete_Class: the callback stops unserialize() instead.
			$callback = ini_set( 'unserialize_callback_func', __CLASS__ . '::class_is_gone' );
			try {
				$value = @unserialize( $raw );
			} catch ( DomainException $e ) {
				$value = false;
			} finally {
				ini_set( 'unserialize_callback_func', $callback );
			}
			if ( false === $value ) {
				$ok = false; // not ours, or a class that is gone: a miss
			}
			return $value;
		}

		/** unserialize_callback_func while decoding: a missing class ends it. */
		public static function class_is_gone( $class_name ) {
			throw new DomainException( 'class not found: ' . $class_name );
		}

		/** One store call; a failure is a miss or a failed write (false), never a fatal error. */
		private function kv( $fn, ...$args ) {
			try {
				return $fn( ...$args );
			} catch ( Ephpm\KvException $e ) {
				$this->failed( $e );
				return false;
			}
		}

		private function failed( Throwable $e ) {
			$this->last_error = $e;
			if ( ! $this->logged ) {
				$this->logged = true;
				error_log( 'ephpm object cache: ' . $e->getMessage() );
			}
		}
	}

endif;

function wp_cache_init() {
	$GLOBALS['wp_object_cache'] = new WP_Object_Cache();
}

function wp_cache_add( $key, $data, $group = '', $expire = 0 ) {
	global $wp_object_cache;
	return $wp_object_cache->add( $key, $data, $group, (int) $expire );
}

function wp_cache_add_multiple( array $data, $group = '', $expire = 0 ) {
	global $wp_object_cache;
	return $wp_object_cache->add_multiple( $data, $group, $expire );
}

function wp_cache_replace( $key, $data, $group = '', $expire = 0 ) {
	global $wp_object_cache;
	return $wp_object_cache->replace( $key, $data, $group, (int) $expire );
}

function wp_cache_set( $key, $data, $group = '', $expire = 0 ) {
	global $wp_object_cache;
	return $wp_object_cache->set( $key, $data, $group, (int) $expire );
}

function wp_cache_set_multiple( array $data, $group = '', $expire = 0 ) {
	global $wp_object_cache;
	return $wp_object_cache->set_multiple( $data, $group, $expire );
}

function wp_cache_get( $key, $group = '', $force = false, &$found = null ) {
	global $wp_object_cache;
	return $wp_object_cache->get( $key, $group, $force, $found );
}

function wp_cache_get_multiple( $keys, $group = '', $force = false ) {
	global $wp_object_cache;
	return $wp_object_cache->get_multiple( $keys, $group, $force );
}

function wp_cache_delete( $key, $group = '' ) {
	global $wp_object_cache;
	return $wp_object_cache->delete( $key, $group );
}

function wp_cache_delete_multiple( array $keys, $group = '' ) {
	global $wp_object_cache;
	return $wp_object_cache->delete_multiple( $keys, $group );
}

function wp_cache_incr( $key, $offset = 1, $group = '' ) {
	global $wp_object_cache;
	return $wp_object_cache->incr( $key, $offset, $group );
}

function wp_cache_decr( $key, $offset = 1, $group = '' ) {
	global $wp_object_cache;
	return $wp_object_cache->decr( $key, $offset, $group );
}

function wp_cache_flush() {
	global $wp_object_cache;
	return $wp_object_cache->flush();
}

function wp_cache_flush_runtime() {
	global $wp_object_cache;
	return $wp_object_cache->flush_runtime();
}

function wp_cache_flush_group( $group ) {
	global $wp_object_cache;
	return $wp_object_cache->flush_group( $group );
}

function wp_cache_supports( $feature ) {
	switch ( $feature ) {
		case 'add_multiple':
		case 'set_multiple':
		case 'get_multiple':
		case 'delete_multiple':
		case 'flush_runtime':
		case 'flush_group':
			return true;
		default:
			return false;
	}
}

function wp_cache_close() {
	return true;
}

function wp_cache_add_global_groups( $groups ) {
	global $wp_object_cache;
	$wp_object_cache->add_global_groups( $groups );
}

function wp_cache_add_non_persistent_groups( $groups ) {
	global $wp_object_cache;
	$wp_object_cache->add_non_persistent_groups( $groups );
}

function wp_cache_switch_to_blog( $blog_id ) {
	global $wp_object_cache;
	$wp_object_cache->switch_to_blog( $blog_id );
}

function wp_cache_reset() {
	if ( function_exists( '_deprecated_function' ) ) {
		_deprecated_function( __FUNCTION__, '3.5.0', 'wp_cache_switch_to_blog()' );
	}
	global $wp_object_cache;
	$wp_object_cache->reset();
}
