<?php

declare(strict_types=1);

// Prints the ephpm API as reflection sees it, one line per function, class,
// constant, property and method: from the loaded extension, or (with the
// stub file as argument, extension not loaded) from the IDE stub. Two runs
// must print the same (build/test-package.sh).

if ($argc > 1) {
    require $argv[1];
    $functions = array_filter(get_defined_functions()['user'], static fn (string $f): bool => str_starts_with($f, 'ephpm_'));
    $classes = array_filter(get_declared_classes(), static fn (string $c): bool => str_starts_with($c, 'Ephpm\\'));
} else {
    $ext = new ReflectionExtension('ephpm');
    $functions = array_keys($ext->getFunctions());
    $classes = $ext->getClassNames();
}

function type(?ReflectionType $t): string
{
    return $t === null ? '' : (string) $t;
}

function params(ReflectionFunctionAbstract $f): string
{
    $ps = [];
    foreach ($f->getParameters() as $p) {
        $s = type($p->getType()) . ' $' . $p->getName();
        if ($p->isDefaultValueAvailable()) {
            // A float parameter's default reads 30 internally, 30.0 in PHP.
            $d = $p->getDefaultValue();
            $s .= ' = ' . (is_float($d) && floor($d) === $d ? (string) (int) $d : var_export($d, true));
        } elseif ($p->isOptional()) {
            $s .= ' = ?';
        }
        $ps[] = $s;
    }
    return '(' . implode(', ', $ps) . '): ' . type($f->getReturnType());
}

$blocks = [];
foreach ($functions as $name) {
    $blocks[] = 'function ' . strtolower($name) . params(new ReflectionFunction($name));
}
foreach ($classes as $name) {
    $c = new ReflectionClass($name);
    $lines = [];
    foreach ($c->getReflectionConstants() as $k) {
        if ($k->getDeclaringClass()->getName() === $name) {
            $lines[] = "  const {$k->getName()} = " . var_export($k->getValue(), true);
        }
    }
    foreach ($c->getProperties() as $p) {
        if ($p->getDeclaringClass()->getName() === $name) {
            $lines[] = '  property ' . implode(' ', Reflection::getModifierNames($p->getModifiers())) . ' ' . type($p->getType()) . ' $' . $p->getName();
        }
    }
    foreach ($c->getMethods() as $m) {
        if ($m->getDeclaringClass()->getName() === $name) {
            $lines[] = '  method ' . implode(' ', Reflection::getModifierNames($m->getModifiers())) . ' ' . $m->getName() . params($m);
        }
    }
    sort($lines);
    $head = 'class ' . $c->getName() . ($c->isFinal() ? ' final' : '') . ' extends ' . ($c->getParentClass() ? $c->getParentClass()->getName() : '-');
    $blocks[] = implode("\n", [$head, ...$lines]);
}
sort($blocks);
echo implode("\n", $blocks), "\n";
