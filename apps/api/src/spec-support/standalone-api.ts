/**
 * For specs: a Nest application of some of the API's modules on 127.0.0.1 (any free
 * port), with the tokens the API's providers share — an embedded log in a temp dir, a
 * LiveView over it, the API's EventWriter and Intents — the API's error filter and
 * validation pipe, and a way to put records on the log.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { EVENT_LOG, EmbeddedEventLog } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { LiveView } from '@shoal/runtime';
import type { EventWriter } from '@shoal/runtime';
import { API_CONFIG, API_VIEW, API_WRITER } from '../api.tokens';
import { ApiEventWriter } from '../api-writer';
import { validationPipe } from '../api-core.module';
import { DockerExceptionFilter } from '../http/docker-exception.filter';
import { Intents } from '../intents/intents';

export interface StandaloneApi {
  readonly app: INestApplication;
  readonly url: string;
  readonly dir: string;
  readonly log: EventLog;
  readonly view: LiveView;
  readonly writer: EventWriter;
  /** Appends events (or raw strings: poison) as one batch and waits until the view has applied them. */
  append(events: readonly (ShoalEvent | string)[]): Promise<void>;
  get(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export const CLUSTER = 'c1';

export interface StandaloneOptions {
  /** Start the view before the app (default true). */
  readonly startView?: boolean;
  /** The log to serve (it is closed with the app); default an embedded log in the temp dir. */
  readonly openLog?: () => Promise<EventLog>;
}

export const startStandaloneApi = async (modules: readonly (Type | DynamicModule)[], options: StandaloneOptions = {}): Promise<StandaloneApi> => {
  const dir = await mkdtemp(join(tmpdir(), 'shoal-api-'));
  const log = options.openLog ? await options.openLog() : await EmbeddedEventLog.open({ dir, sync: false });
  const view = new LiveView(log);
  if (options.startView !== false) await view.start();
  const writer = new ApiEventWriter(log, CLUSTER, 'api', 'api-spec');
  const tokens: DynamicModule = {
    module: class ApiTokensForSpecs {},
    global: true,
    providers: [
      { provide: EVENT_LOG, useValue: log },
      { provide: API_VIEW, useValue: view },
      { provide: API_WRITER, useValue: writer },
      { provide: API_CONFIG, useValue: { dataDir: dir, cluster: CLUSTER } },
      Intents,
    ],
    exports: [EVENT_LOG, API_VIEW, API_WRITER, API_CONFIG, Intents],
  };
  const moduleRef = await Test.createTestingModule({ imports: [tokens, ...modules] }).compile();
  const app = moduleRef.createNestApplication({ logger: false, forceCloseConnections: true });
  // As the API does: Docker's error shape for every error, DTOs validated.
  app.useGlobalFilters(new DockerExceptionFilter());
  app.useGlobalPipes(validationPipe());
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    app,
    url,
    dir,
    log,
    view,
    writer,
    async append(events) {
      if (events.length === 0) return;
      const { last } = await log.append(events.map((event) => ({ key: CLUSTER, value: typeof event === 'string' ? event : encode(event) })));
      await view.waitFor(last + 1);
    },
    get: (path, init) => fetch(`${url}${path}`, init),
    async close() {
      await app.close();
      await view.stop();
      await log.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
};
