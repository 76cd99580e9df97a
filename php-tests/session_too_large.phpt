--TEST--
Session data too large to store: session_write_close() throws Ephpm\KvException VALUE_TOO_LARGE naming the limit and keeps the stored data; at the end of the request, where no code could catch it, it is a warning that says why, not a fatal error "in [no active file]"
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
--FILE--
<?php
// Over the 1 MiB every engine's default allows, compressed or not.
$big = base64_encode(random_bytes(3 << 20));
$id = 'big' . bin2hex(random_bytes(14));
ephpm_kv_set("session:$id", 'v|s:3:"old";');
session_id($id);
session_start();
$_SESSION['big'] = $big;
try {
    session_write_close();
    echo "written\n";
} catch (Ephpm\KvException $e) {
    var_dump($e->getCode() === Ephpm\KvException::VALUE_TOO_LARGE);
    echo $e->getMessage(), "\n";
}
var_dump(ephpm_kv_get("session:$id"), ephpm_kv_exists("session_lock:$id"));
session_start();
$_SESSION['big'] = $big;
echo "end of the script\n";
?>
--EXPECTF--
bool(true)
ephpm-kv: value is too large: %d bytes, %s 1048576%S; raise %s
string(12) "v|s:3:"old";"
bool(false)
end of the script

Warning: PHP Request Shutdown: ephpm-kv: value is too large: %d bytes, %s 1048576%S; raise %s in Unknown on line 0

Warning: PHP Request Shutdown: Failed to write session data (ephpm)%s in Unknown on line 0
