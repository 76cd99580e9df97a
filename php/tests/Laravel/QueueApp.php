<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Laravel;

use Ephpm\Bridge\Laravel\EphpmServiceProvider;
use Illuminate\Bus\BusServiceProvider;
use Illuminate\Cache\ArrayStore;
use Illuminate\Cache\Repository;
use Illuminate\Config\Repository as Config;
use Illuminate\Console\Application as Artisan;
use Illuminate\Container\Container;
use Illuminate\Contracts\Container\Container as ContainerContract;
use Illuminate\Contracts\Debug\ExceptionHandler;
use Illuminate\Contracts\Events\Dispatcher as EventsContract;
use Illuminate\Contracts\Queue\Factory as QueueFactory;
use Illuminate\Events\EventServiceProvider;
use Illuminate\Queue\Console\WorkCommand;
use Illuminate\Queue\Events\JobFailed;
use Illuminate\Queue\QueueManager;
use Illuminate\Queue\QueueServiceProvider;
use Illuminate\Queue\Worker;
use Symfony\Component\Console\Input\ArrayInput;
use Symfony\Component\Console\Output\BufferedOutput;

/**
 * The smallest Laravel application that runs `php artisan queue:work`:
 * Laravel's own config repository, event dispatcher, bus, QueueServiceProvider
 * (the QueueManager) and WorkCommand, with the bridge's EphpmServiceProvider
 * registered as package discovery would. The worker is Laravel's Worker, told
 * the application is never down for maintenance (a Foundation Application's
 * check, which this container has no files for).
 */
final class QueueApp extends Container
{
    /** @var list<JobFailed> the JobFailed events of this application */
    public array $failed = [];

    /**
     * @param array<string, mixed> $connection the 'ephpm' connection's config, over the defaults
     */
    public static function create(array $connection = [], bool $resolveQueueFirst = false): self
    {
        $app = new self();
        Container::setInstance($app);
        // Foundation's base bindings: the container is the application
        $app->instance('app', $app);
        $app->instance(Container::class, $app);
        $app->instance(ContainerContract::class, $app);
        $app->instance('config', new Config([
            'app' => ['timezone' => 'UTC'],
            'queue' => [
                'default' => 'ephpm',
                'connections' => ['ephpm' => $connection + ['driver' => 'ephpm', 'queue' => 'default', 'retry_after' => 90]],
                'failed' => ['driver' => 'null'],
            ],
        ]));
        $app->alias('events', EventsContract::class);
        $app->alias('queue', QueueFactory::class);
        $app->alias('queue', QueueManager::class);
        (new EventServiceProvider($app))->register();
        (new BusServiceProvider($app))->register();
        (new QueueServiceProvider($app))->register();
        if ($resolveQueueFirst) {
            $app->make('queue');
        }
        (new EphpmServiceProvider($app))->register();
        $app->instance(ExceptionHandler::class, new RecordingExceptionHandler());
        $app->singleton('queue.worker', static fn (self $app) => new Worker(
            $app['queue'], $app['events'], $app[ExceptionHandler::class], static fn () => false
        ));
        $app['events']->listen(JobFailed::class, static function (JobFailed $event) use ($app): void {
            $app->failed[] = $event;
        });

        return $app;
    }

    /** Foundation's Application answers this from storage/framework/down; WorkCommand asks. */
    public function isDownForMaintenance(): bool
    {
        return false;
    }

    /** Foundation's Application answers this from its environment; Laravel 10's commands ask (prompts' fallback). */
    public function runningUnitTests(): bool
    {
        return true;
    }

    /** Artisan with queue:work, as Laravel's ArtisanServiceProvider registers it. */
    public function artisan(): Artisan
    {
        $artisan = new Artisan($this, $this['events'], 'ephpm-test');
        // the cache is where queue:restart leaves its signal
        $artisan->add(new WorkCommand($this['queue.worker'], new Repository(new ArrayStore())));

        return $artisan;
    }

    /**
     * `php artisan queue:work` with $parameters (e.g. ['--stop-when-empty' => true]).
     *
     * @param array<string, mixed> $parameters
     * @return array{int, string} exit code and output
     */
    public function work(array $parameters = []): array
    {
        $output = new BufferedOutput();
        $input = new ArrayInput(['command' => 'queue:work', 'connection' => 'ephpm', '--sleep' => '0'] + $parameters);
        $input->setInteractive(false);
        $code = $this->artisan()->run($input, $output);

        return [$code, $output->fetch()];
    }

    public function exceptions(): RecordingExceptionHandler
    {
        return $this[ExceptionHandler::class];
    }
}
