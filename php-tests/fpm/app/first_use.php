<?php
// First use in this worker: "ok ENGINE", or the exception's code and message.
try {
    ephpm_kv_get('k');
    echo 'ok ', ephpm_kv_stats()['engine'];
} catch (Ephpm\KvException $e) {
    echo $e->getCode(), ' ', $e->getMessage();
}
