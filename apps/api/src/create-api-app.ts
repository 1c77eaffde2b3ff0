/**
 * The API as an application: built from a log (opened here from the environment, or
 * handed in by the all-in-one process), listening on <host>:<port> (127.0.0.1 unless told;
 * bearer tokens, or client certificates with --tlsverify; HTTPS with --tls) and on the
 * unix socket <dataDir>/shoal.sock (no token), with its OpenAPI document at /openapi.json.
 */
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventLog } from '@shoal/eventlog';
import type { ClusterKeyring, ProcessMetrics, SigningCa } from '@shoal/runtime';
import { ApiModule } from './api.module';
import { apiConfig } from './api.config';
import type { ApiConfig } from './api.config';
import { loadTokens } from './access/tokens';
import { installHttpPipeline } from './http/http-pipeline';
import { installRequestTracing } from './http/request-tracing';
import { SocketListener } from './http/socket-listener';
import { API_VERSION } from './http/api-version';
import { withErrorResponses } from './http/error-responses';
import { DEFAULT_API_HOST, httpsOptions } from './tls/api-listen-settings';
import type { ApiListenSettings } from './tls/api-listen-settings';

export interface CreateApiAppOptions {
  readonly log: EventLog;
  readonly dataDir: string;
  /** TCP port; 0 picks a free one (read it back from app.getHttpServer().address()). */
  readonly port: number;
  /** Bind address and TLS (default 127.0.0.1, plain HTTP): see tls/api-listen-settings.ts. */
  readonly listen?: ApiListenSettings;
  /** The cluster to serve; by default the one on the log (or, on an empty log, the one `docker swarm init` creates). */
  readonly cluster?: string;
  /** Where agents join, shown by `docker swarm join-token`. */
  readonly joinAddr?: string;
  /** The metrics of the process hosting the API, shared with the parts beside it (the all-in-one); else the API's own. */
  readonly metrics?: ProcessMetrics;
  /** The cluster keyring of the process hosting the API, shared with its dispatcher (the all-in-one); else the API's own. */
  readonly keyring?: ClusterKeyring;
  /** The cluster's first root CA (SHOAL_CA_DIR's), when it has one. */
  readonly ca?: SigningCa & { readonly pem: string };
}

export const openApiDocument = (app: INestApplication): OpenAPIObject =>
  withErrorResponses(SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Shoal control API')
      .setDescription(
        "Docker's Engine API (swarm subset, any /v1.NN prefix) and Shoal's audit surface. " +
          'Over TCP every request needs "Authorization: Bearer <token>"; the unix socket needs none. ' +
          "A method a path does not serve is answered 404 on Docker's routes (as Docker's engine does) and 405 on Shoal's own, " +
          'both with Allow naming the methods it serves; errors are {"message": "…"}.',
      )
      .setVersion(API_VERSION)
      .addBearerAuth()
      .build(),
  ));

/** Builds the API on an open log and listens on the socket and host:port (127.0.0.1 by default). */
export const createApiApp = async (options: CreateApiAppOptions): Promise<INestApplication> =>
  buildApiApp(
    apiConfig({
      dataDir: options.dataDir,
      port: options.port,
      ...(options.cluster ? { cluster: options.cluster } : {}),
      ...(options.joinAddr ? { joinAddr: options.joinAddr } : {}),
      ...(options.ca ? { ca: options.ca } : {}),
    }),
    options.log,
    options.metrics,
    options.listen,
    options.keyring,
  );

/** The same, from a config; without a log, the log comes from the environment (KAFKA_BROKERS or embedded). */
export const buildApiApp = async (
  config: ApiConfig,
  log?: EventLog,
  metrics?: ProcessMetrics,
  listen: ApiListenSettings = { host: DEFAULT_API_HOST },
  keyring?: ClusterKeyring,
): Promise<INestApplication> => {
  const { registry } = loadTokens(config.dataDir);
  // Read before the log is opened: a missing certificate fails the start at once.
  const tls = listen.tls ? httpsOptions(listen.tls) : undefined;
  const app = await NestFactory.create(ApiModule.forRoot({ config, ...(log ? { log } : {}), ...(metrics ? { metrics } : {}), ...(keyring ? { keyring } : {}) }), {
    ...(tls ? { httpsOptions: tls } : {}),
    bodyParser: false,
    forceCloseConnections: true,
    logger: ['error', 'warn'],
  });
  installRequestTracing(app);
  installHttpPipeline(app, registry);
  const document = openApiDocument(app);
  app.getHttpAdapter().get('/openapi.json', (_req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(document));
  });
  await app.init();
  await app.get(SocketListener).listen(config.socketPath);
  await app.listen(config.port, listen.host);
  return app;
};
