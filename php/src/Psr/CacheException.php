<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Psr;

/** A store failure (an Ephpm\KvException, kept as the previous exception). */
final class CacheException extends \RuntimeException implements \Psr\SimpleCache\CacheException
{
}
