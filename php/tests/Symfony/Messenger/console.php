<?php
// A tiny bin/console for EphpmTransportTest's worker processes: Messenger's
// ConsumeMessagesCommand on MessengerApp's transports, on the same store as
// the test (Support\Processes::php passes the extension and its ephpm.* settings).
// Usage: php console.php messenger:consume async [--limit=N] [--time-limit=S] ...
//        EPHPM_TEST_MESSENGER_DSN sets the async transport's DSN (default ephpm://orders)
declare(strict_types=1);

require dirname(__DIR__, 2) . '/bootstrap.php';
if ($missing = require __DIR__ . '/autoload.php') {
    fwrite(STDERR, 'Symfony components missing: ' . implode(', ', $missing) . "\n");
    exit(1);
}

use Ephpm\Bridge\Tests\Symfony\Messenger\MessengerApp;
use Symfony\Component\Console\Input\ArgvInput;
use Symfony\Component\Console\Output\ConsoleOutput;

$app = new MessengerApp(getenv('EPHPM_TEST_MESSENGER_DSN') ?: 'ephpm://orders');
exit($app->console()->run(new ArgvInput($argv), new ConsoleOutput()));
