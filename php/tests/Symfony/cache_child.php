<?php
// A second PHP process for EphpmAdapterTest's cross-process check, started
// with the parent's php.ini and ephpm ini (same segment name or server).
// Usage: cache_child.php NAMESPACE ACTION [KEY [VALUE]]
declare(strict_types=1);

require __DIR__ . '/../bootstrap.php';

use Ephpm\Bridge\Symfony\EphpmAdapter;

[, $namespace, $action] = $argv;
$pool = new EphpmAdapter($namespace);
switch ($action) {
    case 'get': // get KEY: the item's value as JSON, or "miss"
        $item = $pool->getItem($argv[3]);
        echo $item->isHit() ? json_encode($item->get()) : 'miss', "\n";
        break;
    case 'set': // set KEY JSON: save the decoded value, say whether it was saved
        echo $pool->save($pool->getItem($argv[3])->set(json_decode($argv[4], true))) ? "saved\n" : "failed\n";
        break;
    case 'clear':
        echo $pool->clear() ? "cleared\n" : "failed\n";
        break;
    case 'unreachable': // every call against a store that fails: results and what was logged, as JSON
        $logger = new class () extends Psr\Log\AbstractLogger {
            public array $logged = [];

            public function log($level, $message, array $context = []): void
            {
                $e = $context['exception'] ?? null;
                $this->logged[] = sprintf('%s %s: %s', $level, trim(strtok((string) $message, '":')), $e instanceof Ephpm\KvException ? $e->getCode() : get_debug_type($e));
            }
        };
        $pool->setLogger($logger);
        $out = [
            'hit' => $pool->getItem('k')->isHit(),
            'save' => $pool->save($pool->getItem('k')->set('v')),
            'has' => $pool->hasItem('k'),
            'delete' => $pool->deleteItem('k'),
            'clear' => $pool->clear(),
            'get' => $pool->get('k', fn () => 'computed'),
        ];
        echo json_encode($out + ['logged' => $logger->logged]), "\n";
        break;
    default:
        fwrite(STDERR, "unknown action $action\n");
        exit(2);
}
