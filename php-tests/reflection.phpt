--TEST--
Function signatures come from the stub (arginfo)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
foreach ((new ReflectionExtension('ephpm'))->getFunctions() as $f) {
    $params = array_map(
        fn($p) => $p->getType() . ' $' . $p->getName() . ($p->isOptional() ? ' = ' . var_export($p->getDefaultValue(), true) : ""),
        $f->getParameters()
    );
    echo $f->getName(), '(', implode(', ', $params), '): ', $f->getReturnType(), "\n";
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
