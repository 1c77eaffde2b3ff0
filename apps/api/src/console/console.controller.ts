/**
 * The console: its page, script and style under /console, and what the page reads under
 * /shoal/v1/console — the live cluster as server-sent events, the cluster at any point of
 * the log, and what differs between two points. Read-only: every route is a GET, open to
 * the auditor role. A task's story and the verify report come from the audit surface.
 */
import { Controller, Get, Header, Inject, Query, Req, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiBadRequestResponse, ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AuditStateQuery } from '../audit/audit-query.dto';
import { dockerValidationPipe } from '../audit/docker-validation';
import { DOCKER_ERROR_SCHEMA } from '../audit/audit-responses';
import { writeChunk } from '../events/write-chunk';
import { buildConsoleAssets } from './console-bundle';
import type { ConsoleAssets } from './console-bundle';
import { ConsoleFeed } from './console-feed';
import { ConsoleHistory } from './console-history';
import { ConsoleDiffQuery } from './console-query.dto';
import type { ConsoleDiff, ConsoleView } from './console-wire';

/** A comment line every so often keeps an idle stream open through proxies that time out silence. */
export const KEEP_ALIVE_MS = 15_000;

/** Nothing but the console's own script and style; no frames, no other origin. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const ERROR = { schema: DOCKER_ERROR_SCHEMA };

/** One server-sent event carrying a view. */
export const viewEvent = (view: ConsoleView): string => `id: ${view.position}\nevent: view\ndata: ${JSON.stringify(view)}\n\n`;

@ApiTags('console')
@Controller()
export class ConsoleController {
  private assets?: Promise<ConsoleAssets>;

  constructor(
    @Inject(ConsoleFeed) private readonly feed: ConsoleFeed,
    @Inject(ConsoleHistory) private readonly history: ConsoleHistory,
  ) {}

  @Get('console')
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', CSP)
  @Header('Cache-Control', 'no-cache')
  async page(): Promise<string> {
    return (await this.built()).html;
  }

  @Get('console/console.js')
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  async script(): Promise<string> {
    return (await this.built()).js;
  }

  @Get('console/console.css')
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/css; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  async style(): Promise<string> {
    return (await this.built()).css;
  }

  @Get('shoal/v1/console/live')
  @ApiOperation({
    summary: 'The live cluster, as server-sent events',
    description:
      'An `event: view` at once, then one each time the log moves (records arriving within 50 ms make one): services with replicas running/desired, tasks by state, nodes with status, availability and load, updates under way. `id` is the view\'s position on the log.',
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'A stream of `view` events, each a JSON ConsoleView.' })
  live(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    res.write(': the cluster, live\n\n');
    // One write at a time: a slow client gets the newest view once it is ready, not every view in between.
    let writing = false;
    let waiting: ConsoleView | undefined;
    const send = async (view: ConsoleView): Promise<void> => {
      if (writing) {
        waiting = view;
        return;
      }
      writing = true;
      await writeChunk(res, viewEvent(view));
      writing = false;
      const next = waiting;
      waiting = undefined;
      if (next && !res.destroyed) await send(next);
    };
    const unsubscribe = this.feed.subscribe((view) => void send(view));
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    const close = (): void => {
      clearInterval(keepAlive);
      unsubscribe();
    };
    req.on('close', close);
    res.on('close', close);
  }

  @Get('shoal/v1/console/state')
  @ApiOperation({
    summary: 'The cluster as the console shows it, at a point of the log',
    description: 'A replay of the log (as `GET /shoal/v1/audit/state`) to an offset or a time, summed up: services, tasks by state, nodes, updates; and the writer\'s time on the last record in it.',
  })
  @ApiOkResponse({ description: 'A ConsoleView.' })
  @ApiBadRequestResponse({ description: '`at` is neither an offset nor a time, or is past the end of the log.', ...ERROR })
  state(@Query(dockerValidationPipe(AuditStateQuery)) query: AuditStateQuery): Promise<ConsoleView> {
    return this.history.viewAt(query.at);
  }

  @Get('shoal/v1/console/diff')
  @ApiOperation({
    summary: 'What changed between two points of the log',
    description: 'The services, tasks and nodes added, removed and changed (each field that differs, from → to) between the state at `from` and at `to`.',
  })
  @ApiOkResponse({ description: 'A ConsoleDiff.' })
  @ApiBadRequestResponse({ description: '`from` or `to` is missing, neither an offset nor a time, or past the end of the log.', ...ERROR })
  diff(@Query(dockerValidationPipe(ConsoleDiffQuery)) query: ConsoleDiffQuery): Promise<ConsoleDiff> {
    return this.history.diff(query.from, query.to);
  }

  private async built(): Promise<ConsoleAssets> {
    this.assets ??= buildConsoleAssets();
    try {
      return await this.assets;
    } catch (error) {
      this.assets = undefined;
      throw new ServiceUnavailableException({ message: `the console is not available: ${(error as Error).message}` });
    }
  }
}
