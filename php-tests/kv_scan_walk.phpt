--TEST--
ephpm_kv_scan(): a walk in small steps reports every key that was there for the whole walk, while keys come and go between its steps; $cursor goes from null to "" at the end, and a call with "" returns [] without a step; a step may return no key while the walk goes on
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
for ($i = 0; $i < 300; $i++) {
    ephpm_kv_set("walk:$i", (string)$i);
}
$seen = [];
$cursor = null;
$steps = $empty = 0;
do {
    $page = ephpm_kv_scan($cursor, 'walk:*', 10);
    $steps++;
    $empty += $page === [];
    foreach ($page as $key => $info) {
        $seen[$key] = true;
    }
    // Between steps: 100 keys go, 100 others come. Neither may break the walk.
    if ($steps <= 100) {
        ephpm_kv_del('walk:' . (199 + $steps));
        ephpm_kv_set("walk:new:$steps", 'n');
    }
} while ($cursor !== '' && $steps < 100000);
$missing = array_filter(range(0, 199), fn ($i) => !isset($seen["walk:$i"]));
var_dump($missing, $steps > 5, $cursor);
var_dump(count(array_filter(array_keys($seen), fn ($k) => !str_starts_with($k, 'walk:'))));
// Done: "" returns [] at once and stays "".
var_dump(ephpm_kv_scan($cursor), $cursor);
// The largest step lists the rest in one call or a few.
$cursor = null;
$all = [];
$calls = 0;
do {
    $all += ephpm_kv_scan($cursor, '', 10000);
    $calls++;
} while ($cursor !== '');
var_dump(count(array_filter(array_keys($all), fn ($k) => preg_match('/^walk:\d+$/', $k) && (int)substr($k, 5) < 200)));
// A ?string property takes the cursor as a variable does.
$holder = new class { public ?string $cursor = null; };
ephpm_kv_scan($holder->cursor, 'walk:*', 5);
var_dump(is_string($holder->cursor));
?>
--EXPECT--
array(0) {
}
bool(true)
string(0) ""
int(0)
array(0) {
}
string(0) ""
int(200)
bool(true)
