<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Symfony\Messenger;

/** A message for MessengerApp's "async" transport: its handler fails its first $fail calls. */
final class TestMessage
{
    public function __construct(public int $n, public int $fail = 0)
    {
    }
}
