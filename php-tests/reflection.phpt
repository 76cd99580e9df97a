--TEST--
Function and method signatures, and the classes' properties, come from the stub (arginfo)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
$sig = fn (ReflectionFunctionAbstract $f) => '(' . implode(', ', array_map(
    fn($p) => $p->getType() . ' $' . $p->getName() . ($p->isOptional() ? ' = ' . var_export($p->getDefaultValue(), true) : ""),
    $f->getParameters()
)) . ')' . ($f->hasReturnType() ? ': ' . $f->getReturnType() : '');
foreach ((new ReflectionExtension('ephpm'))->getFunctions() as $f) {
    echo $f->getName(), $sig($f), "\n";
}
// Each class's own properties and methods.
foreach ((new ReflectionExtension('ephpm'))->getClasses() as $c) {
    echo "\n", $c->isFinal() ? 'final ' : '', 'class ', $c->getName(), "\n";
    foreach ($c->getProperties() as $p) {
        if ($p->getDeclaringClass()->getName() === $c->getName()) {
            echo '  ', implode(' ', Reflection::getModifierNames($p->getModifiers())), ' ', $p->getType(), ' $', $p->getName(), "\n";
        }
    }
    foreach ($c->getMethods() as $m) {
        if ($m->getDeclaringClass()->getName() === $c->getName()) {
            echo '  ', implode(' ', Reflection::getModifierNames($m->getModifiers())), ' ', $m->getName(), $sig($m), "\n";
        }
    }
}
?>
--EXPECTF--
ephpm_kv_get(string $key): ?string
ephpm_kv_set(string $key, string $value, int|float $ttl = %d, bool $evictable = false): bool
ephpm_kv_get_multi(array $keys): array
ephpm_kv_del_multi(array $keys): int
ephpm_kv_remember(string $key, callable $compute, int|float $ttl = %d, bool $evictable = true, float $wait = %d): string
ephpm_kv_setnx(string $key, string $value, int|float $ttl = %d): bool
ephpm_kv_add(string $key, string $value, int|float $ttl = %d, bool $evictable = false): bool
ephpm_kv_del(string $key): int
ephpm_kv_del_if_eq(string $key, string $token): bool
ephpm_kv_exists(string $key): bool
ephpm_kv_expire(string $key, int|float $ttl): bool
ephpm_kv_expire_if_eq(string $key, string $token, int|float $ttl): bool
ephpm_kv_ttl(string $key): int|float
ephpm_kv_incr(string $key, int $by = %d, int|float $ttl = %d): int
ephpm_kv_flush(): bool
ephpm_kv_stats(): array
ephpm_kv_fence(string $resource, int $fence): bool
ephpm_kv_rate_limit(string $key, int $limit, int|float $window): array
ephpm_kv_scan(?string $cursor, string $pattern = '', int $count = %d): array

class Ephpm\KvException

class Ephpm\LockTimeoutException

final class Ephpm\Lock
  public readonly string $name
  public readonly string $token
  public readonly int $fence
  private __construct()
  public static acquire(string $name, float $ttl = %d, float $wait = %d, bool $autoRenew = false, float $maxHold = %d): ?Ephpm\Lock
  public static acquireAll(array $names, float $ttl = %d, float $wait = %d): ?Ephpm\LockSet
  public static run(string $name, callable $fn, float $ttl = %d, float $wait = %d): mixed
  public refresh(?float $ttl = NULL): bool
  public release(): bool
  public isAcquired(): bool
  public remaining(): float

final class Ephpm\LockSet
  public readonly array $locks
  private __construct()
  public get(string $name): Ephpm\Lock
  public refresh(?float $ttl = NULL): bool
  public release(): bool
  public isAcquired(): bool

final class Ephpm\ReadWriteLock
  public readonly string $name
  public readonly string $token
  public readonly int $fence
  public readonly string $mode
  private __construct()
  public static read(string $name, float $ttl = %d, float $wait = %d): ?Ephpm\ReadWriteLock
  public static write(string $name, float $ttl = %d, float $wait = %d): ?Ephpm\ReadWriteLock
  public refresh(?float $ttl = NULL): bool
  public release(): bool
  public isAcquired(): bool
  public remaining(): float

final class Ephpm\Semaphore
  public readonly string $name
  public readonly string $token
  public readonly int $fence
  public readonly int $permits
  private __construct()
  public static acquire(string $name, int $permits, float $ttl = %d, float $wait = %d): ?Ephpm\Semaphore
  public static holders(string $name): int
  public refresh(?float $ttl = NULL): bool
  public release(): bool
  public isAcquired(): bool
  public remaining(): float

final class Ephpm\Leader
  public readonly string $election
  public readonly string $value
  public readonly int $term
  private __construct()
  public static campaign(string $election, string $value, float $ttl = %d, float $wait = %d, bool $autoRenew = false): ?Ephpm\Leader
  public static current(string $election): ?array
  public isLeader(): bool
  public refresh(?float $ttl = NULL): bool
  public resign(): bool
  public remaining(): float

final class Ephpm\Barrier
  private __construct()
  public static wait(string $name, int $parties, float $timeout): bool

final class Ephpm\Queue
  public readonly string $name
  public readonly float $visibility
  public readonly int $maxAttempts
  public __construct(string $name, float $visibility = %d, int $maxAttempts = %d)
  public push(string $payload, float $delay = %d): string
  public pop(float $wait = %d): ?Ephpm\Job
  public size(): int
  public dead(int $limit = %d): array
  public retry(?string $id = NULL): int

final class Ephpm\Job
  public readonly string $queue
  public readonly string $id
  public readonly string $payload
  public readonly int $attempts
  private __construct()
  public ack(): bool
  public release(float $delay = %d): bool
  public touch(): bool
