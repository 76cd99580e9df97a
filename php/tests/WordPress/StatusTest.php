<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\WordPress;

use Ephpm\Bridge\Tests\Support\Processes;
use PHPUnit\Framework\TestCase;

/**
 * php/wordpress/ephpm-status.php: the Site Health test and the Info tab's
 * section, through WordPress 6.1's own filters, and `wp ephpm status` on a
 * stand-in of WP-CLI (which Debian does not package: wp_cli_standin.php).
 * The outcomes that need a store in a given state (fresh, full, unreachable,
 * no extension) run in child processes on stores of their own
 * (status_child.php); the rest on this suite's store.
 */
final class StatusTest extends TestCase
{
    public static function setUpBeforeClass(): void
    {
        require_once ABSPATH . WPINC . '/compat.php'; // _is_utf8_charset() (WordPress 6.8's esc_html())
        require_once ABSPATH . WPINC . '/formatting.php';
        require_once ABSPATH . WPINC . '/kses.php';
        require_once ABSPATH . WPINC . '/pomo/translations.php';
        require_once ABSPATH . WPINC . '/l10n.php';
        $GLOBALS['l10n_unloaded']['ephpm-kv'] = true; // no translation to look for: the English strings
        require_once dirname(__DIR__, 2) . '/wordpress/ephpm-status.php';
    }

    protected function setUp(): void
    {
        wp_cache_set('alloptions', ['blog_charset' => 'UTF-8'], 'options'); // esc_html() reads the charset from there
    }

    /** The child on a store of its own: $ini replaces this process's ephpm settings. */
    private function child(array $ini, string ...$args): array
    {
        $ini += ['ephpm.server' => '', 'ephpm.shm_name' => '', 'ephpm.shm_size' => '1M'];
        [$code, $out, $err] = Processes::run(Processes::phpWith($ini, __DIR__ . '/status_child.php', ...$args));
        $this->assertSame('', $err, $out);
        return [$code, $out];
    }

    private function health(array $ini, string $scenario = 'health'): array
    {
        [$code, $out] = $this->child($ini, $scenario);
        $this->assertSame(0, $code, $out);
        $health = json_decode($out, true);
        $this->assertIsArray($health, $out);
        $this->assertSame(['label' => 'ephpm-kv store', 'test' => 'ephpm_wp_status_site_health'], $health['registered']);
        $result = $health['result'];
        // What WP_Site_Health::perform_test() passes on to the screen.
        $this->assertSame(['label', 'status', 'badge', 'description', 'actions', 'test'], array_keys($result));
        $this->assertSame('ephpm_kv', $result['test']);
        return $result;
    }

    public function testSiteHealthOnThisSuitesStore(): void
    {
        $tests = apply_filters('site_status_tests', ['direct' => [], 'async' => []]);
        $this->assertSame('ephpm_wp_status_site_health', $tests['direct']['ephpm_kv']['test']);
        $result = \call_user_func($tests['direct']['ephpm_kv']['test']);
        $this->assertContains($result['status'], ['good', 'recommended'], $result['description']);
        $engine = ephpm_kv_stats()['engine'];
        $this->assertStringContainsString("<th scope=\"row\">Engine</th><td>$engine: ", $result['description']);
        foreach (['Memory', 'Hit ratio', 'Evicted', 'Expired', 'Rejected writes'] as $row) {
            $this->assertStringContainsString("<th scope=\"row\">$row</th>", $result['description']);
        }
        $info = apply_filters('debug_information', []);
        $this->assertSame($engine, $info['ephpm-kv']['fields']['engine']['value']);
        $this->assertSame(ephpm_kv_stats()['bytes_limit'], $info['ephpm-kv']['fields']['memory_limit']['value']);
    }

    public function testSiteHealthGoodOnAFreshStore(): void
    {
        $result = $this->health([]);
        $this->assertSame('good', $result['status'], $result['description']);
        $this->assertSame(['label' => 'Performance', 'color' => 'blue'], $result['badge']);
        $this->assertStringContainsString('<th scope="row">Engine</th><td>shm: anonymous segment', $result['description']);
        $this->assertStringContainsString('<th scope="row">Hit ratio</th><td>–', $result['description']);
    }

    public function testSiteHealthRecommendsRoomWhenTheStoreIsFullAndRefusedWrites(): void
    {
        $result = $this->health([], 'fill-health');
        $this->assertSame('recommended', $result['status']);
        $this->assertSame('orange', $result['badge']['color']);
        $this->assertStringContainsString('The store is nearly full', $result['description']);
        $this->assertMatchesRegularExpression('/The store has refused \d+ writes? for lack of room/', $result['description']);
        $this->assertMatchesRegularExpression('#<th scope="row">Rejected writes</th><td>[1-9]#', $result['description']);
    }

    public function testSiteHealthCriticalWhenTheStoreDoesNotAnswer(): void
    {
        $result = $this->health(['ephpm.server' => 'unix:///nonexistent/ephpm-kv.sock', 'ephpm.server_timeout' => '1']);
        $this->assertSame('critical', $result['status']);
        $this->assertSame('red', $result['badge']['color']);
        $this->assertStringContainsString('cannot reach', $result['description']);
    }

    public function testSiteHealthWithoutTheExtension(): void
    {
        [$code, $out, $err] = Processes::run([PHP_BINARY, __DIR__ . '/status_child.php', 'health']);
        $this->assertSame(0, $code, $out . $err);
        $result = json_decode($out, true)['result'];
        $this->assertSame('recommended', $result['status']);
        $this->assertSame('The ephpm extension is not loaded', $result['label']);
    }

    public function testWpCliCommandIsRegisteredAndShowsTheCounters(): void
    {
        [$code, $out] = $this->child([], 'cli', 'table');
        $this->assertSame(0, $code, $out);
        $lines = explode("\n", trim($out));
        $this->assertSame('add_command: {"ephpm":"Ephpm_Status_Command"}', $lines[0]);
        // The anonymous segment of a CLI process is not the site's: said before the table.
        $this->assertStringStartsWith('Warning: this is the store of this CLI process only', $lines[1]);
        $this->assertSame("Field\tValue", $lines[2]);
        $rows = [];
        foreach (\array_slice($lines, 3) as $line) {
            [$field, $value] = explode("\t", $line, 2);
            $rows[$field] = $value;
        }
        $this->assertSame(['engine', 'store', 'keys', 'memory_used', 'memory_limit', 'memory_held', 'memory_evictable', 'hits',
            'misses', 'hit_ratio', 'expired', 'evicted', 'rejected', 'compressed', 'fences', 'quarantined'], array_keys($rows));
        $this->assertSame('shm', $rows['engine']);
        $this->assertMatchesRegularExpression('/^\d+\.\d KiB$/', $rows['memory_limit']); // a 1 MiB segment, less its index
        $this->assertSame('–', $rows['hit_ratio']);
    }

    public function testWpCliJsonOnANamedSegmentWarnsOfNothing(): void
    {
        $name = '/ephpm-wp-status-' . getmypid();
        try {
            [$code, $out] = $this->child(['ephpm.shm_name' => $name], 'cli', 'json');
        } finally {
            @unlink("/dev/shm$name");
        }
        $this->assertSame(0, $code, $out);
        [$registered, $json] = explode("\n", trim($out), 2);
        $status = json_decode($json, true);
        $this->assertIsArray($status, $out);
        $this->assertSame('shm', $status['engine']);
        $this->assertSame("named segment $name", $status['store']);
        $this->assertIsInt($status['memory_limit']);
        $this->assertNull($status['hit_ratio']);
    }

    public function testWpCliFailsWhenTheStoreDoesNotAnswer(): void
    {
        [$code, $out] = $this->child(['ephpm.server' => 'unix:///nonexistent/ephpm-kv.sock', 'ephpm.server_timeout' => '1'], 'cli');
        $this->assertSame(1, $code, $out);
        $this->assertStringContainsString("\nError: ephpm-kv: ", $out);
        $this->assertStringContainsString('cannot reach', $out);
    }
}
