<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Laravel;

use Ephpm\Bridge\Laravel\EphpmLock;
use Ephpm\Bridge\Laravel\EphpmServiceProvider;
use Ephpm\Bridge\Laravel\EphpmStore;
use Illuminate\Cache\CacheServiceProvider;
use Illuminate\Cache\Repository;
use Illuminate\Config\Repository as Config;
use Illuminate\Container\Container;
use Illuminate\Filesystem\Filesystem;
use Illuminate\Foundation\PackageManifest;
use PHPUnit\Framework\TestCase;

/** The 'ephpm' driver through Laravel's CacheManager, configured as an app would. */
final class EphpmServiceProviderTest extends TestCase
{
    protected function setUp(): void
    {
        ephpm_kv_flush();
    }

    private function app(array $stores, bool $resolveCacheFirst = false): Container
    {
        $app = new Container();
        $app->instance('config', new Config(['cache' => [
            'default' => 'ephpm',
            'prefix' => 'app_cache',
            'stores' => $stores,
        ]]));
        (new CacheServiceProvider($app))->register();
        if ($resolveCacheFirst) {
            $app->make('cache');
        }
        (new EphpmServiceProvider($app))->register();
        return $app;
    }

    /**
     * Package discovery: an application that installed the bridge with
     * Composer registers the provider without naming it (extra.laravel).
     */
    public function testComposerInstallMakesTheProviderDiscoverable(): void
    {
        $vendor = getenv('EPHPM_BRIDGE_VENDOR');
        if ($vendor === false || $vendor === '') {
            $this->markTestSkipped('the bridge was not installed by Composer (build/phpunit-modes.sh installs it)');
        }
        require_once 'Illuminate/autoload.php'; // the whole framework, Foundation's PackageManifest included
        $manifestPath = sys_get_temp_dir() . '/ephpm-packages-' . getmypid() . '.php'; // absent: build() writes it
        @unlink($manifestPath);
        try {
            $manifest = new PackageManifest(new Filesystem(), dirname($vendor), $manifestPath);
            $this->assertContains(EphpmServiceProvider::class, $manifest->providers());
        } finally {
            @unlink($manifestPath);
        }
    }

    public function testDriverIsRegistered(): void
    {
        $app = $this->app(['ephpm' => ['driver' => 'ephpm']]);
        $repo = $app['cache']->store();
        $this->assertInstanceOf(Repository::class, $repo);
        $this->assertInstanceOf(EphpmStore::class, $repo->getStore());
        $this->assertSame('app_cache:', $repo->getStore()->getPrefix());
        $this->assertInstanceOf(EphpmStore::class, $app['cache.store']->getStore());

        $repo->put('foo', 'bar', 10);
        $this->assertSame('bar', $app['cache']->get('foo'));
        $this->assertSame(serialize('bar'), ephpm_kv_get(EphpmStore::NAMESPACE . 'g' . ephpm_kv_get(EphpmStore::NAMESPACE . 'gen:app_cache:') . ':app_cache:foo'));
        // A lock lives apart from the cached items, so flush() never frees it.
        $this->assertInstanceOf(EphpmLock::class, $app['cache']->lock('job', 10));
        $this->assertTrue($app['cache']->lock('job', 10)->get());
        $this->assertNotNull(ephpm_kv_get(EphpmStore::NAMESPACE . 'lock:app_cache:job'));
    }

    public function testStorePrefixOverridesTheCachePrefix(): void
    {
        $app = $this->app(['ephpm' => ['driver' => 'ephpm'], 'other' => ['driver' => 'ephpm', 'prefix' => 'mine']]);
        $this->assertSame('mine:', $app['cache']->store('other')->getStore()->getPrefix());
    }

    public function testRegisteredWhenTheManagerWasAlreadyResolved(): void
    {
        $app = $this->app(['ephpm' => ['driver' => 'ephpm']], true);
        $this->assertInstanceOf(EphpmStore::class, $app['cache']->store('ephpm')->getStore());
    }
}
