/**
 * Test harness: the API in this process on an embedded log in a temp dir, the cluster
 * initialised (unless asked not to), events appended as other components would, and the
 * real docker CLI run against it (over the socket, or over TCP with a bearer token).
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { DEFAULT_CLUSTER_SPEC, encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { EmbeddedEventLog, KafkaEventLog } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { ClusterKeyring } from '@shoal/runtime';
import type { LiveView, SigningCa } from '@shoal/runtime';
import { EventBuilder, TOKENS, dockerCli } from '@shoal/testing';
import type { DockerCliResult } from '@shoal/testing';
import { createApiApp } from '../create-api-app';
import { API_VIEW } from '../api.tokens';
import { TOKENS_FILE } from '../access/tokens';
import type { TokenEntry } from '../access/tokens';

export type DockerResult = DockerCliResult;

export interface ApiHarness {
  readonly app: INestApplication;
  readonly log: EventLog;
  readonly view: LiveView;
  readonly dataDir: string;
  readonly socketPath: string;
  readonly port: number;
  readonly adminToken: string;
  readonly cluster: string;
  /** Builds events as the other components write them (dispatcher, orchestrator, …). */
  readonly events: EventBuilder;
  /** Appends events and waits until the API's view has applied them. */
  append(...events: readonly ShoalEvent[]): Promise<void>;
  /** Runs the docker CLI against the API: over the socket, or over TCP with `token`. */
  docker(args: readonly string[], options?: { readonly token?: string }): Promise<DockerResult>;
  /** An HTTP request over TCP (with the token given) or over the socket (token omitted and socket: true). */
  request(method: string, path: string, options?: { readonly token?: string; readonly body?: unknown; readonly rawBody?: string; readonly socket?: boolean }): Promise<{ status: number; body: unknown; headers: Record<string, string | string[] | undefined> }>;
  close(): Promise<void>;
}

export interface StartApiOptions {
  /** Append ClusterInitialized before the API starts (default true). */
  readonly initialized?: boolean;
  /** The log level ClusterInitialized starts the cluster at (default: none, level 1). */
  readonly logLevel?: number;
  readonly cluster?: string;
  /** Written to tokens.json before the API starts. */
  readonly tokens?: readonly TokenEntry[];
  /** A real broker and a topic of the test's own, instead of the embedded log. */
  readonly kafka?: { readonly brokers: readonly string[]; readonly topic: string };
  /** The cluster's root CA (as SHOAL_CA_DIR gives it). */
  readonly ca?: SigningCa & { readonly pem: string };
}

export const startApi = async (options: StartApiOptions = {}): Promise<ApiHarness> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shoal-api-'));
  if (options.tokens) writeFileSync(join(dataDir, TOKENS_FILE), JSON.stringify(options.tokens));
  const cluster = options.cluster ?? 'c-test';
  const events = new EventBuilder(cluster);
  const log: EventLog = options.kafka
    ? await KafkaEventLog.open({ brokers: [...options.kafka.brokers], topic: options.kafka.topic, clientId: 'shoal-api-test' })
    : await EmbeddedEventLog.open({ dir: join(dataDir, 'log'), sync: false });
  if (options.initialized ?? true) {
    await log.append([
      {
        key: cluster,
        value: encode(
          events.event('ClusterInitialized', {
            spec: DEFAULT_CLUSTER_SPEC,
            // Sealed under the key the API will read from the same data dir, as the API's own init seals them.
            tokens: (await ClusterKeyring.open(log, dataDir)).keepJoinTokens(TOKENS),
            ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
          }),
        ),
      },
    ]);
  }
  const app = await createApiApp({ log, dataDir, port: 0, cluster, ...(options.ca ? { ca: options.ca } : {}) });
  const view = app.get<LiveView>(API_VIEW);
  const port = (app.getHttpServer().address() as { port: number }).port;
  const socketPath = join(dataDir, 'shoal.sock');
  const adminToken = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();
  const dockerHome = join(dataDir, 'docker-home');
  mkdirSync(dockerHome, { recursive: true });

  return {
    app,
    log,
    view,
    dataDir,
    socketPath,
    port,
    adminToken,
    cluster,
    events,
    async append(...list) {
      const { last } = await log.append(list.map((event) => ({ key: cluster, value: encode(event) })));
      await view.waitFor(last + 1);
    },
    docker(args, { token } = {}) {
      return dockerCli(dockerHome, args, { socket: socketPath, timeoutMs: 30_000, ...(token ? { tcp: { port, token } } : {}) });
    },
    async request(method, path, requestOptions = {}) {
      const { request } = await import('node:http');
      return new Promise((resolve, reject) => {
        const body = requestOptions.rawBody ?? (requestOptions.body === undefined ? undefined : JSON.stringify(requestOptions.body));
        const req = request(
          {
            method,
            path,
            ...(requestOptions.socket ? { socketPath } : { host: '127.0.0.1', port }),
            headers: {
              ...(requestOptions.token ? { Authorization: `Bearer ${requestOptions.token}` } : {}),
              ...(body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } : {}),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let parsed: unknown = text;
              try {
                parsed = text ? JSON.parse(text) : undefined;
              } catch {
                parsed = text;
              }
              resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
            });
          },
        );
        req.on('error', reject);
        if (body !== undefined) req.write(body);
        req.end();
      });
    },
    async close() {
      await app.close();
      await log.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};
