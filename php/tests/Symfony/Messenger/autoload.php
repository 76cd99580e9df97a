<?php
// Debian's Symfony Messenger and what MessengerApp wires it with (Console,
// EventDispatcher, DependencyInjection's ServiceLocator), under
// /usr/share/php; returns the components that are missing.
$missing = [];
foreach (['Messenger', 'Console', 'EventDispatcher', 'DependencyInjection'] as $component) {
    $autoload = "/usr/share/php/Symfony/Component/$component/autoload.php";
    if (is_file($autoload)) {
        require_once $autoload;
    } else {
        $missing[] = $component;
    }
}
return $missing;
