<?php

declare(strict_types=1);

// Writes the IDE stub (php/stubs/ephpm.stub.php) from ext/ephpm.stub.php:
// the same declarations, with the constants' values taken from the loaded
// extension instead of gen_stub's UNKNOWN, and gen_stub's own tags removed,
// so PhpStorm and PHPStan see real values. Run with the extension loaded:
//   php -n -d extension=build/ephpm.so build/gen-ide-stub.php > php/stubs/ephpm.stub.php

if (!extension_loaded('ephpm')) {
    fwrite(STDERR, "gen-ide-stub: load the extension (-d extension=build/ephpm.so)\n");
    exit(2);
}
$src = file_get_contents(__DIR__ . '/../ext/ephpm.stub.php');
$class = null;
$out = [];
foreach (explode("\n", $src) as $line) {
    if (preg_match('/^\s*(?:final\s+)?class\s+(\w+)/', $line, $m)) {
        $class = 'Ephpm\\' . $m[1];
    }
    if (preg_match('/@(generate-class-entries|cvalue|strict-properties|not-serializable)\b/', $line)) {
        // A docblock of that tag alone disappears with it.
        if (preg_match('#^\s*/\*\* @[\w-]+ \*/\s*$#', $line)) {
            continue;
        }
        if (preg_match('#^\s*\* @[\w-]+( \S+)?\s*$#', $line)) {
            continue;
        }
    }
    $line = preg_replace_callback(
        '/const (\w+) = UNKNOWN;/',
        static fn (array $m): string => 'const ' . $m[1] . ' = ' . var_export(constant($class . '::' . $m[1]), true) . ';',
        $line,
    );
    $out[] = $line;
}
$text = implode("\n", $out);
$text = preg_replace('#/\*\*\n(\s*\*\n)?\s*\*/\n#', '', $text); // docblocks left empty
$text = preg_replace('#\n\s*\*\n(\s*\*/)#', "\n$1", $text); // a blank line left before */
$text = preg_replace("/\n{3,}/", "\n\n", $text);
$header = "<?php\n\n// IDE stubs of the ephpm extension, for PhpStorm and PHPStan: never include\n"
    . "// this file. Generated from ext/ephpm.stub.php by build/gen-ide-stub.php.\n";
echo $header, rtrim(substr(ltrim($text), strlen('<?php'))), "\n";
