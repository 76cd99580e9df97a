--TEST--
A library whose ops table is older (shorter: no configure_shm, no wait_release) is refused on first use with a message naming both tables, never called past its end
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('its children choose their library');
if (!shell_exec('command -v cc')) die('skip no C compiler'); ?>
--FILE--
<?php
require __DIR__ . '/server.inc';
$dir = sys_get_temp_dir() . '/ephpm-old-' . getmypid();
@mkdir($dir);
register_shutdown_function(function () use ($dir) { @unlink("$dir/old.c"); @unlink("$dir/libold.so"); @rmdir($dir); });
// A table as it was before the shared engine: it ends after set_if_locked.
file_put_contents("$dir/old.c", '#include "ephpm_kv_ops.h"
static ephpm_kv_ops table;
const ephpm_kv_ops *ephpm_kv_get_ops(void) {
    table.abi_version = EPHPM_KV_ABI_VERSION;
    table.struct_size = offsetof(ephpm_kv_ops, configure_shm);
    return &table; /* every op NULL: calling one crashes */
}');
$inc = realpath(__DIR__ . '/../go/capi');
shell_exec("cc -shared -fPIC -I$inc -o $dir/libold.so $dir/old.c 2>&1");
foreach (['shm' => ['ephpm.shm_size' => '4M'], 'map' => ['ephpm.shm_size' => '0']] as $engine => $ini) {
    echo $engine, ': ', ephpm_child('', 'try { var_dump(ephpm_kv_setnx("k", "v")); } catch (Ephpm\KvException $e) {
        echo $e->getCode() === Ephpm\KvException::UNAVAILABLE ? "UNAVAILABLE: " : "code {$e->getCode()}: ", $e->getMessage(); }',
        $ini + ['ephpm.library' => "$dir/libold.so"]), "\n";
}
?>
--EXPECTF--
shm: UNAVAILABLE: ephpm-kv: %s/libold.so speaks ABI 2 (table of %d bytes), this extension needs ABI 2 (%d bytes): build both from the same source
map: UNAVAILABLE: ephpm-kv: %s/libold.so speaks ABI 2 (table of %d bytes), this extension needs ABI 2 (%d bytes): build both from the same source
