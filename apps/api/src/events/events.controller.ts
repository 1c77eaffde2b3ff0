/** Docker's GET /events (any /v1.NN prefix): the cluster's history and its live tail, from the log. */
import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { badRequest } from '../audit/docker-validation';
import { parseEventFilters } from './event-filters';
import { streamDockerEvents } from './event-stream';
import { parseEventTime } from './event-time';
import { writeChunk } from './write-chunk';

const optionalTime = (field: string, raw: string | undefined): bigint | undefined => {
  if (raw === undefined || raw === '') return undefined;
  const parsed = parseEventTime(field, raw);
  if (!parsed.ok) throw badRequest(parsed.message);
  return parsed.ns;
};

@ApiTags('docker')
@Controller()
export class EventsController {
  constructor(@Inject(EVENT_LOG) private readonly log: EventLog) {}

  @Get('events')
  @ApiOperation({
    summary: "Docker's event stream, from the log",
    description:
      'Newline-separated event messages (Type service|node|network|task, Action create|update|remove, Actor, scope, time, timeNano). ' +
      'Without since or until: what happens from now on. With since: the history from then, read from the log (durable). With until: ends then.',
  })
  @ApiQuery({ name: 'since', required: false, description: 'Unix seconds (fractions allowed) or RFC 3339' })
  @ApiQuery({ name: 'until', required: false, description: 'Unix seconds (fractions allowed) or RFC 3339' })
  @ApiQuery({ name: 'filters', required: false, description: 'JSON: {"type":{"service":true}}; type, event, service, node, network, label, scope, …' })
  @ApiOkResponse({ description: 'A stream of JSON event messages.' })
  @ApiBadRequestResponse({ description: 'since, until or filters is invalid.' })
  async events(
    @Query('since') sinceRaw: string | undefined,
    @Query('until') untilRaw: string | undefined,
    @Query('filters') filtersRaw: string | undefined,
    @Req() req: IncomingMessage,
    @Res() res: ServerResponse,
  ): Promise<void> {
    const since = optionalTime('since', sinceRaw);
    const until = optionalTime('until', untilRaw);
    if (since !== undefined && until !== undefined && since > until) {
      // Docker's words, naming each time as the client wrote it.
      throw badRequest(`\`since\` time (${sinceRaw ?? ''}) cannot be after \`until\` time (${untilRaw ?? ''})`);
    }
    const parsed = parseEventFilters(filtersRaw);
    if (!parsed.ok) throw badRequest(parsed.message);

    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Cache-Control', 'no-cache');
    res.flushHeaders();
    // The client may go while the stream is being set up: remember it, and stop at once.
    let gone = false;
    let stop = (): void => {
      gone = true;
    };
    req.on('close', () => stop());
    res.on('close', () => stop());
    const stream = await streamDockerEvents(
      this.log,
      { filters: parsed.filters, ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) },
      {
        write: (chunk) => writeChunk(res, chunk),
        end: () => res.end(),
      },
    );
    stop = () => stream.stop();
    if (gone || res.destroyed) stream.stop();
  }
}
