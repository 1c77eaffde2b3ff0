/**
 * The control API on its own: `shoal run api` (or `node dist/apps/api/main.js`), on the
 * log from the environment (KAFKA_BROKERS, else the embedded log in $SHOAL_DATA_DIR).
 * Listens on $SHOAL_API_HOST:$SHOAL_API_PORT (127.0.0.1:8080; bearer tokens, or client
 * certificates with --tlsverify) and $SHOAL_DATA_DIR/shoal.sock. Flags: --host, --tls,
 * --tlsverify, --tlscacert, --tlscert, --tlskey (tls/api-listen-settings.ts).
 */
import 'reflect-metadata';
import { resolve } from 'node:path';
import { runUntilSignalled } from '@shoal/runtime';
import { apiConfigFromEnv } from './api.config';
import { buildApiApp } from './create-api-app';
import { apiListenSettings, describeListener, exposureWarning } from './tls/api-listen-settings';

runUntilSignalled('api', async () => {
  const config = apiConfigFromEnv(process.env);
  const listen = apiListenSettings(process.env, process.argv.slice(2));
  const warning = exposureWarning(listen);
  if (warning) process.stderr.write(`${warning}\n`);
  const app = await buildApiApp(config, undefined, undefined, listen);
  const address = app.getHttpServer().address() as { port: number };
  process.stdout.write(
    `api: listening on ${describeListener(listen, address.port)} (token in ${resolve(config.dataDir, 'admin.token')}) and unix:${resolve(config.socketPath)}\n`,
  );
  return app;
});
