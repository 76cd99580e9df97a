<?php
// One sample of bench/queue.php: php -n [ini] bench/queue_loop.php CONTENDER N [SOCKET]
// prints {"jobs_per_s": ...} for N jobs pushed, then N popped and
// acknowledged, through CONTENDER; it checks every job came back once.
declare(strict_types=1);

[$contender, $n, $sock] = [$argv[1], (int) $argv[2], $argv[3] ?? ''];
$name = 'bench-' . getmypid();

if (str_starts_with($contender, 'laravel')) {
    foreach (['Container', 'Database', 'Queue', 'Redis', 'Support'] as $pkg) {
        require_once "/usr/share/php/Illuminate/$pkg/autoload.php";
    }
    $container = new Illuminate\Container\Container();
    if ($contender === 'laravel-database-sqlite') {
        $db = new Illuminate\Database\Capsule\Manager();
        $db->addConnection(['driver' => 'sqlite', 'database' => $sock]);
        $conn = $db->getConnection();
        $conn->statement('CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, queue TEXT NOT NULL,
            payload TEXT NOT NULL, attempts INTEGER NOT NULL, reserved_at INTEGER, available_at INTEGER NOT NULL,
            created_at INTEGER NOT NULL)');
        $conn->statement('CREATE INDEX IF NOT EXISTS jobs_queue ON jobs (queue)');
        $queue = new Illuminate\Queue\DatabaseQueue($conn, 'jobs', 'default', 60);
    } else {
        $redis = new Illuminate\Redis\RedisManager($container, 'phpredis', ['default' => ['scheme' => 'unix', 'path' => $sock, 'host' => $sock, 'port' => 0, 'database' => 0]]);
        $queue = new Illuminate\Queue\RedisQueue($redis, 'default', 'default', 60);
    }
    $queue->setContainer($container);
    $push = fn(string $p) => $queue->pushRaw(json_encode(['uuid' => $p, 'job' => 'x', 'data' => $p, 'attempts' => 0]), $name);
    $take = function () use ($queue, $name): string {
        $job = $queue->pop($name);
        $job->delete();
        return $job->payload()['data'];
    };
} else {
    $queue = new Ephpm\Queue($name, 60, 5);
    $push = fn(string $p) => $queue->push($p);
    $take = function () use ($queue): string {
        $job = $queue->pop();
        $job->ack() || exit("ack refused\n");
        return $job->payload;
    };
}
$start = hrtime(true);
for ($i = 0; $i < $n; $i++) {
    $push("job-$i");
}
$seen = [];
for ($i = 0; $i < $n; $i++) {
    $seen[$take()] = true;
}
$ns = hrtime(true) - $start;
count($seen) === $n || exit("lost jobs: " . count($seen) . " of $n\n");
echo json_encode(['jobs_per_s' => $n / ($ns / 1e9)]), "\n";
