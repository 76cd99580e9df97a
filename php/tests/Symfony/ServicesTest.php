<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Symfony;

use Ephpm\Bridge\Symfony\Messenger\EphpmTransport;
use Ephpm\Bridge\Symfony\Messenger\EphpmTransportFactory;
use PHPUnit\Framework\TestCase;
use Symfony\Component\Config\FileLocator;
use Symfony\Component\DependencyInjection\Argument\TaggedIteratorArgument;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\DependencyInjection\Loader\YamlFileLoader;
use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Messenger\Transport\Serialization\PhpSerializer;
use Symfony\Component\Messenger\Transport\TransportFactory;

/** config/symfony.yaml, the services the README tells a Symfony application to import, in a real container. */
final class ServicesTest extends TestCase
{
    protected function setUp(): void
    {
        foreach (['DependencyInjection', 'Config', 'Yaml'] as $component) {
            $autoload = "/usr/share/php/Symfony/Component/$component/autoload.php";
            if (!is_file($autoload)) {
                $this->markTestSkipped("Symfony's $component component is not installed (build/deps.sh bridges)");
            }
            require_once $autoload;
        }
        ephpm_kv_flush();
    }

    /** The file the package ships: Composer's copy when the suite installed the bridge. */
    private static function configDir(): string
    {
        $vendor = getenv('EPHPM_BRIDGE_VENDOR');

        return $vendor ? "$vendor/ephpm/ephpm-kv-bridge/config" : dirname(__DIR__, 2) . '/config';
    }

    private function container(array $parameters = []): ContainerBuilder
    {
        $container = new ContainerBuilder();
        (new YamlFileLoader($container, new FileLocator(self::configDir())))->load('symfony.yaml');
        foreach ($parameters as $name => $value) {
            $container->setParameter($name, $value);
        }
        $this->assertSame('ephpm.lock.factory', (string) $container->getAlias(LockFactory::class), 'the autowired LockFactory');
        $container->compile();

        return $container;
    }

    public function testLockFactoryLocksOnTheStore(): void
    {
        $container = $this->container(['ephpm.lock.prefix' => 'svc-lock:', 'ephpm.lock.initial_ttl' => 20.0]);
        $factory = $container->get('ephpm.lock.factory');
        $lock = $factory->createLock('report', 30);
        $this->assertTrue($lock->acquire());
        $this->assertNotNull(ephpm_kv_get('svc-lock:report'), 'the lock is a key under the configured prefix');
        $this->assertFalse($factory->createLock('report', 30)->acquire(), 'a second lock on the name waits its turn');
        $lock->release();
        $this->assertFalse(ephpm_kv_exists('svc-lock:report'));
    }

    public function testCachePoolComputesOnce(): void
    {
        $cache = $this->container(['ephpm.cache.namespace' => 'svc'])->get('ephpm.cache');
        $calls = 0;
        $compute = function () use (&$calls) { $calls++; return 'built'; };
        $this->assertSame('built', $cache->get('report', $compute));
        $this->assertSame('built', $cache->get('report', $compute));
        $this->assertSame(1, $calls);
    }

    /** The ephpm:// transport factory, as FrameworkBundle finds it: by its tag, in the transport factory it builds. */
    public function testMessengerTransportFactoryIsTagged(): void
    {
        $container = new ContainerBuilder();
        (new YamlFileLoader($container, new FileLocator(self::configDir())))->load('symfony.yaml');
        $tagged = $container->findTaggedServiceIds('messenger.transport_factory');
        $this->assertSame(['ephpm.messenger.transport_factory'], array_keys($tagged));
        $this->assertSame(EphpmTransportFactory::class, $container->getDefinition('ephpm.messenger.transport_factory')->getClass());

        $messenger = '/usr/share/php/Symfony/Component/Messenger/autoload.php';
        if (!is_file($messenger)) {
            $this->markTestSkipped("Symfony's Messenger component is not installed (build/deps.sh bridges)");
        }
        require_once $messenger;
        // FrameworkBundle's messenger.transport_factory: every tagged factory
        $container->register('messenger.transport_factory', TransportFactory::class)
            ->setArguments([new TaggedIteratorArgument('messenger.transport_factory')])
            ->setPublic(true);
        $container->compile();
        $transport = $container->get('messenger.transport_factory')->createTransport('ephpm://svc?visibility=12', [], new PhpSerializer());
        $this->assertInstanceOf(EphpmTransport::class, $transport);
        $this->assertSame('sf-messenger:svc', $transport->getQueue()->name);
        $this->assertEquals(12.0, $transport->getQueue()->visibility);
    }
}
