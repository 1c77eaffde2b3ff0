/** The OpenAPI description both logs endpoints share: the operation and Docker's query parameters. */
import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiQuery } from '@nestjs/swagger';

export const LogsOperation = (summary: string): MethodDecorator =>
  applyDecorators(
    ApiOperation({
      summary,
      description:
        "Docker's multiplexed stream (application/vnd.docker.multiplexed-stream): one frame per line, 1 stdout, 2 stderr, 3 an error. " +
        '503 when no dispatcher answers.',
    }),
    ApiQuery({ name: 'stdout', required: false, description: 'Lines written to stdout (one of stdout, stderr is required)' }),
    ApiQuery({ name: 'stderr', required: false, description: 'Lines written to stderr' }),
    ApiQuery({ name: 'follow', required: false, description: 'Keep streaming what the tasks write' }),
    ApiQuery({ name: 'since', required: false, description: 'Unix seconds, with an optional fraction: only lines written since' }),
    ApiQuery({ name: 'tail', required: false, description: '"all" (default) or the number of lines from the end of each task\'s output' }),
    ApiQuery({ name: 'timestamps', required: false, description: 'Start each line with its time (RFC 3339, nanoseconds)' }),
    ApiQuery({ name: 'details', required: false, description: "Start each line with its task's node, service and task ids" }),
  );
