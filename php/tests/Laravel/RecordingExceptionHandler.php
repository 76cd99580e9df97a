<?php

declare(strict_types=1);

namespace Ephpm\Bridge\Tests\Laravel;

use Illuminate\Contracts\Debug\ExceptionHandler;
use Throwable;

/** The application's exception handler: keeps what Laravel's Worker reports. */
final class RecordingExceptionHandler implements ExceptionHandler
{
    /** @var list<Throwable> */
    public array $reported = [];

    public function report(Throwable $e)
    {
        $this->reported[] = $e;
    }

    public function shouldReport(Throwable $e)
    {
        return true;
    }

    public function render($request, Throwable $e)
    {
        throw $e;
    }

    public function renderForConsole($output, Throwable $e)
    {
        $output->writeln((string) $e);
    }
}
