<?php
// A web server for headless Chromium (fpm_test.php): the router of `php -S`
// that hands each request for /status.php to php-fpm through cgi-fcgi, as
// nginx's fastcgi_pass would, with EPHPM_STATUS_ALLOW=127.0.0.1 as its
// fastcgi_param. The socket and script come from EPHPM_PROXY_SOCKET and
// EPHPM_PROXY_SCRIPT.
if (parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) !== '/status.php') {
    http_response_code(404);
    echo "not found\n";
    return true;
}
$env = [
    'SCRIPT_FILENAME' => getenv('EPHPM_PROXY_SCRIPT'),
    'SCRIPT_NAME' => '/status.php',
    'REQUEST_METHOD' => $_SERVER['REQUEST_METHOD'],
    'REQUEST_URI' => $_SERVER['REQUEST_URI'],
    'QUERY_STRING' => $_SERVER['QUERY_STRING'] ?? '',
    'REMOTE_ADDR' => $_SERVER['REMOTE_ADDR'],
    'SERVER_PROTOCOL' => 'HTTP/1.1',
    'EPHPM_STATUS_ALLOW' => '127.0.0.1',
    'PATH' => getenv('PATH'),
];
$proc = proc_open(['cgi-fcgi', '-bind', '-connect', getenv('EPHPM_PROXY_SOCKET')], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env);
$response = stream_get_contents($pipes[1]);
$errors = stream_get_contents($pipes[2]);
proc_close($proc);
[$head, $body] = array_pad(preg_split("/\r?\n\r?\n/", $response, 2), 2, '');
foreach (preg_split("/\r?\n/", $head) as $line) {
    if (preg_match('/^Status:\s*(\d{3})/i', $line, $m)) {
        http_response_code((int)$m[1]);
    } elseif (str_contains($line, ':')) {
        header($line);
    }
}
echo $body, $errors;
return true;
