<?php
// A tiny artisan for EphpmQueueTest's worker processes: Laravel's Console
// Application with queue:work on the 'ephpm' connection (QueueApp), on the
// same store as the test (Support\Processes::php passes the extension and
// its ephpm.* settings).
// Usage: php artisan.php queue:work ephpm [--stop-when-empty] [--tries=N] ...
//        EPHPM_TEST_QUEUE_CONFIG='{"retry_after": 5}' sets the connection's config
declare(strict_types=1);

require __DIR__ . '/bootstrap.php';
require_once 'Illuminate/autoload.php'; // the whole framework: Queue, Bus, Events, Console

use Ephpm\Bridge\Tests\Laravel\QueueApp;
use Symfony\Component\Console\Input\ArgvInput;
use Symfony\Component\Console\Output\ConsoleOutput;

$config = json_decode((string) getenv('EPHPM_TEST_QUEUE_CONFIG'), true);
$app = QueueApp::create(is_array($config) ? $config : []);
exit($app->artisan()->run(new ArgvInput($argv), new ConsoleOutput()));
