<?php
// First use in this worker: "ok ENGINE", or the exception's code and message.
// ?hold=1 first keeps the worker 200 ms, so concurrent requests each get one.
if (isset($_GET['hold'])) {
    usleep(200000);
}
try {
    ephpm_kv_get('k');
    echo 'ok ', ephpm_kv_stats()['engine'];
} catch (Ephpm\KvException $e) {
    echo $e->getCode(), ' ', $e->getMessage();
}
