<?php
/**
 * Plugin Name: ephpm-kv status
 * Description: The ephpm-kv store in Site Health (engine, memory, hit ratio, evictions) and `wp ephpm status` for WP-CLI.
 * Version: 0.1.0
 * Requires PHP: 8.2
 * License: MIT
 * Text Domain: ephpm-kv
 *
 * Install: copy (or symlink) this file to wp-content/mu-plugins/, beside the
 * object cache drop-in (php/wordpress/object-cache.php). It reads the store
 * the way any PHP of the site does, with ephpm_kv_stats(), and writes
 * nothing.
 *
 * Site Health (Tools > Site Health): a test, "ephpm-kv store", that is
 * critical when the store does not answer, recommended when it is nearly full
 * (90 %), has refused writes for lack of room, or is the in-process map under
 * php-fpm (every worker a cache of its own), and good otherwise; its
 * description gives the engine and where the store lives, the memory held and
 * evictable, the hit ratio and the evictions. The Info tab gets the same
 * numbers in a section of its own.
 *
 * WP-CLI: `wp ephpm status [--format=table|json|yaml|csv]`. WP-CLI runs PHP's
 * CLI, which shares the store of the site's php-fpm only through a named
 * segment (ephpm.shm_name, the same in both) or a server (ephpm.server); on
 * the anonymous segment or the map it reads a store of its own, and says so.
 */

if ( ! function_exists( 'ephpm_wp_status' ) ) :

	/**
	 * The store's state for people: engine, where it lives, and the counters,
	 * or an exception when it cannot be read.
	 *
	 * @return array<string, int|float|string|null>
	 * @throws Ephpm\KvException when the store does not answer
	 * @throws RuntimeException when the extension is not loaded
	 */
	function ephpm_wp_status() {
		if ( ! extension_loaded( 'ephpm' ) ) {
			throw new RuntimeException( 'the ephpm extension is not loaded in this PHP' );
		}
		$stats  = ephpm_kv_stats();
		$engine = (string) $stats['engine'];
		$reads  = $stats['hits'] + $stats['misses'];
		switch ( $engine ) {
			case 'shm':
				$name  = (string) ini_get( 'ephpm.shm_name' );
				$store = '' !== $name ? "named segment $name"
					: 'anonymous segment, shared by the processes forked from the one that mapped it (php-fpm\'s workers)';
				break;
			case 'map':
				$store = 'in this process only (ephpm.shm_size=0)';
				break;
			default:
				// Credentials in the address are never shown.
				$store = (string) preg_replace( '#^([a-z-]+://)[^/@]*@#i', '$1', (string) ini_get( 'ephpm.server' ) );
		}
		return array(
			'engine'           => $engine,
			'store'            => $store,
			'keys'             => (int) $stats['keys'],
			'memory_used'      => (int) $stats['bytes_used'],
			'memory_limit'     => (int) $stats['bytes_limit'],
			'memory_held'      => max( 0, (int) $stats['bytes_used'] - (int) $stats['bytes_evictable'] ),
			'memory_evictable' => (int) $stats['bytes_evictable'],
			'hits'             => (int) $stats['hits'],
			'misses'           => (int) $stats['misses'],
			'hit_ratio'        => $reads > 0 ? round( $stats['hits'] / $reads, 4 ) : null,
			'expired'          => (int) $stats['expired'],
			'evicted'          => (int) $stats['evicted'],
			'rejected'         => (int) $stats['rejected'],
			'compressed'       => (int) $stats['compressed'],
			'fences'           => (int) $stats['fences'],
			'quarantined'      => (int) $stats['quarantined'],
		);
	}

	/** Bytes as people read them. */
	function ephpm_wp_status_bytes( $bytes ) {
		$units = array( 'B', 'KiB', 'MiB', 'GiB', 'TiB' );
		$i     = 0;
		while ( $bytes >= 1024 && $i < count( $units ) - 1 ) {
			$bytes /= 1024;
			$i++;
		}
		return 0 === $i ? sprintf( '%d B', $bytes ) : sprintf( '%.1f %s', $bytes, $units[ $i ] );
	}

	/** The hit ratio as a percentage, or a dash before the first read. */
	function ephpm_wp_status_ratio( $ratio ) {
		return null === $ratio ? '–' : sprintf( '%.1f %%', 100 * $ratio );
	}

	/**
	 * The Site Health test: label, status (good, recommended, critical),
	 * badge, description, actions and test, as WP_Site_Health expects.
	 *
	 * @return array<string, mixed>
	 */
	function ephpm_wp_status_site_health() {
		$result = array(
			'label'       => __( 'The ephpm-kv store is healthy', 'ephpm-kv' ),
			'status'      => 'good',
			'badge'       => array(
				'label' => __( 'Performance', 'ephpm-kv' ),
				'color' => 'blue',
			),
			'description' => '',
			'actions'     => '',
			'test'        => 'ephpm_kv',
		);
		try {
			$s = ephpm_wp_status();
		} catch ( Throwable $e ) {
			$result['status']         = $e instanceof RuntimeException && ! $e instanceof Ephpm\KvException ? 'recommended' : 'critical';
			$result['label']          = 'critical' === $result['status']
				? __( 'The ephpm-kv store does not answer', 'ephpm-kv' )
				: __( 'The ephpm extension is not loaded', 'ephpm-kv' );
			$result['badge']['color'] = 'critical' === $result['status'] ? 'red' : 'orange';
			$result['description']    = '<p>' . esc_html( $e->getMessage() ) . '</p>';
			return $result;
		}
		$problems = array();
		if ( $s['memory_limit'] > 0 && $s['memory_used'] >= 0.9 * $s['memory_limit'] ) {
			$problems[] = __( 'The store is nearly full: give entries a TTL, or give the store more memory (ephpm.shm_size, or the server\'s limit).', 'ephpm-kv' );
		}
		if ( $s['rejected'] > 0 ) {
			/* translators: %d: how many writes the store refused */
			$problems[] = sprintf( _n( 'The store has refused %d write for lack of room.', 'The store has refused %d writes for lack of room.', $s['rejected'], 'ephpm-kv' ), $s['rejected'] );
		}
		if ( 'map' === $s['engine'] && 'cli' !== PHP_SAPI ) {
			$problems[] = __( 'The store is the in-process map (ephpm.shm_size=0): each PHP worker caches for itself, and locks do not reach the other workers. Remove ephpm.shm_size=0, or set ephpm.server.', 'ephpm-kv' );
		}
		if ( $problems ) {
			$result['status']         = 'recommended';
			$result['label']          = __( 'The ephpm-kv store needs attention', 'ephpm-kv' );
			$result['badge']['color'] = 'orange';
		}
		$rows  = array(
			__( 'Engine', 'ephpm-kv' )       => $s['engine'] . ': ' . $s['store'],
			__( 'Memory', 'ephpm-kv' )       => $s['memory_limit'] > 0
				/* translators: 1: bytes used, 2: the limit, 3: the percentage used */
				? sprintf( __( '%1$s of %2$s (%3$s)', 'ephpm-kv' ), ephpm_wp_status_bytes( $s['memory_used'] ), ephpm_wp_status_bytes( $s['memory_limit'] ), sprintf( '%.1f %%', 100 * $s['memory_used'] / $s['memory_limit'] ) )
				: ephpm_wp_status_bytes( $s['memory_used'] ),
			__( 'Held, never evicted', 'ephpm-kv' ) => ephpm_wp_status_bytes( $s['memory_held'] ),
			__( 'Evictable cache', 'ephpm-kv' ) => ephpm_wp_status_bytes( $s['memory_evictable'] ),
			__( 'Hit ratio', 'ephpm-kv' )    => ephpm_wp_status_ratio( $s['hit_ratio'] ) . ' (' . $s['hits'] . ' / ' . ( $s['hits'] + $s['misses'] ) . ')',
			__( 'Evicted', 'ephpm-kv' )      => (string) $s['evicted'],
			__( 'Expired', 'ephpm-kv' )      => (string) $s['expired'],
			__( 'Rejected writes', 'ephpm-kv' ) => (string) $s['rejected'],
			__( 'Keys', 'ephpm-kv' )         => (string) $s['keys'],
		);
		$html  = '<p>' . esc_html__( 'The object cache, locks and sessions live in the ephpm-kv store.', 'ephpm-kv' ) . '</p>';
		foreach ( $problems as $problem ) {
			$html .= '<p><strong>' . esc_html( $problem ) . '</strong></p>';
		}
		$html .= '<table class="widefat striped" id="ephpm-kv-status"><tbody>';
		foreach ( $rows as $name => $value ) {
			$html .= '<tr><th scope="row">' . esc_html( $name ) . '</th><td>' . esc_html( $value ) . '</td></tr>';
		}
		$result['description'] = $html . '</tbody></table>';
		return $result;
	}

	/**
	 * The Info tab's section.
	 *
	 * @param array<string, mixed> $info
	 * @return array<string, mixed>
	 */
	function ephpm_wp_status_debug_information( $info ) {
		$fields = array();
		try {
			foreach ( ephpm_wp_status() as $name => $value ) {
				$fields[ $name ] = array(
					'label' => ucfirst( str_replace( '_', ' ', $name ) ),
					'value' => null === $value ? '–' : ( 'hit_ratio' === $name ? ephpm_wp_status_ratio( $value ) : $value ),
				);
			}
		} catch ( Throwable $e ) {
			$fields['error'] = array(
				'label' => __( 'Error', 'ephpm-kv' ),
				'value' => $e->getMessage(),
			);
		}
		$info['ephpm-kv'] = array(
			'label'  => __( 'ephpm-kv store', 'ephpm-kv' ),
			'fields' => $fields,
		);
		return $info;
	}

	if ( function_exists( 'add_filter' ) ) {
		add_filter(
			'site_status_tests',
			static function ( $tests ) {
				$tests['direct']['ephpm_kv'] = array(
					'label' => __( 'ephpm-kv store', 'ephpm-kv' ),
					'test'  => 'ephpm_wp_status_site_health',
				);
				return $tests;
			}
		);
		add_filter( 'debug_information', 'ephpm_wp_status_debug_information' );
	}

	if ( defined( 'WP_CLI' ) && WP_CLI && class_exists( 'WP_CLI' ) ) :

		/**
		 * The ephpm-kv store: `wp ephpm status`.
		 */
		class Ephpm_Status_Command {
			/**
			 * Shows the store's engine, memory and counters.
			 *
			 * ## OPTIONS
			 *
			 * [--format=<format>]
			 * : How to show them.
			 * ---
			 * default: table
			 * options:
			 *   - table
			 *   - json
			 *   - yaml
			 *   - csv
			 * ---
			 *
			 * ## EXAMPLES
			 *
			 *     wp ephpm status
			 *     wp ephpm status --format=json
			 *
			 * @param array<int, string>    $args
			 * @param array<string, string> $assoc_args
			 */
			public function status( $args, $assoc_args ) {
				$format = isset( $assoc_args['format'] ) ? $assoc_args['format'] : 'table';
				try {
					$s = ephpm_wp_status();
				} catch ( Throwable $e ) {
					WP_CLI::error( $e->getMessage() );
					return;
				}
				if ( 'map' === $s['engine'] || ( 'shm' === $s['engine'] && '' === (string) ini_get( 'ephpm.shm_name' ) ) ) {
					WP_CLI::warning( 'this is the store of this CLI process only, not the one of the site\'s php-fpm: '
						. 'they share one only through a named segment (the same ephpm.shm_name and ephpm.shm_size for both) '
						. 'or a server (ephpm.server)' );
				}
				if ( 'json' === $format || 'yaml' === $format ) {
					WP_CLI::print_value( $s, array( 'format' => $format ) );
					return;
				}
				$items = array();
				foreach ( $s as $field => $value ) {
					if ( null === $value ) {
						$value = '–';
					} elseif ( 'hit_ratio' === $field ) {
						$value = ephpm_wp_status_ratio( $value );
					} elseif ( 0 === strpos( $field, 'memory_' ) && 'table' === $format ) {
						$value = ephpm_wp_status_bytes( $value );
					}
					$items[] = array(
						'Field' => $field,
						'Value' => $value,
					);
				}
				WP_CLI\Utils\format_items( $format, $items, array( 'Field', 'Value' ) );
			}
		}

		WP_CLI::add_command( 'ephpm', 'Ephpm_Status_Command' );

	endif;

endif;
