--TEST--
Lock names in messages are whole and readable: a NUL, control bytes, quotes, backslashes, bytes that are not UTF-8 and invisible characters and spaces other than ' ' are escaped (as Go's %q, as the store's own messages show keys); UTF-8 is kept
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
ephpm_kv_flush(); // server modes share one store with the tests before
$names = ["nm:a\0b", "nm:\x01\x1f\x7f\t\n\r", "nm:q\"b\\s", "nm:\xff\xc3(", "nm:caf\u{e9}", "nm:\u{202e}rtl\u{200b}\u{a0}", "nm:\xc2\x85", "nm:\e\x07\x08\f\v"];
foreach ($names as $name) {
    try {
        Ephpm\Lock::acquireAll([$name, 'nm:other', $name]);
    } catch (ValueError $e) {
        echo $e->getMessage(), "\n";
    }
}
var_dump(ephpm_kv_exists('nm:other'));
// the name of a lock someone holds, in the timeout of run()
$held = Ephpm\Lock::acquire("nm:r\0un", 30);
try {
    Ephpm\Lock::run("nm:r\0un", fn() => null, 30, 0);
} catch (Ephpm\LockTimeoutException $e) {
    echo $e->getMessage(), "\n";
}
var_dump($held->release());
?>
--EXPECT--
Ephpm\Lock::acquireAll(): Argument #1 ($names) must not contain "nm:a\x00b" more than once
Ephpm\Lock::acquireAll(): Argument #1 ($names) must not contain "nm:\x01\x1f\x7f\t\n\r" more than once
Ephpm\Lock::acquireAll(): Argument #1 ($names) must not contain "nm:q\"b\\s" more than once
Ephpm\Lock::acquireAll(): Argument #1 ($names) must not contain "nm:\xff\xc3(" more than once
Ephpm\Lock::acquireAll(): Argument #1 ($names) must not contain "nm:café" more than once
Ephpm\Lock::acquireAll(): Argument #1 ($names) must not contain "nm:\u202ertl\u200b\u00a0" more than once
Ephpm\Lock::acquireAll(): Argument #1 ($names) must not contain "nm:\u0085" more than once
Ephpm\Lock::acquireAll(): Argument #1 ($names) must not contain "nm:\x1b\a\b\f\v" more than once
bool(false)
Could not acquire lock "nm:r\x00un" within 0.000 seconds
bool(true)
