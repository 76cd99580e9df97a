<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Psr;

/** A key or TTL that PSR-16 (or the store) does not accept. */
final class InvalidArgumentException extends \InvalidArgumentException implements \Psr\SimpleCache\InvalidArgumentException
{
}
