<?php
// What this worker's store holds, for the driver (which, without a server,
// has no other way to look into the workers' store).
header('Content-Type: application/json');
$key = $_GET['key'] ?? '';
echo json_encode([
    'pid' => getmypid(),
    'engine' => ephpm_kv_stats()['engine'],
    'value' => $key === '' ? null : ephpm_kv_get($key),
]);
