/**
 * The control API on its own: `shoal run api` (or `node dist/apps/api/main.js`), on the
 * log from the environment (KAFKA_BROKERS, else the embedded log in $SHOAL_DATA_DIR).
 * Listens on 127.0.0.1:$SHOAL_API_PORT (8080; bearer tokens) and $SHOAL_DATA_DIR/shoal.sock.
 */
import 'reflect-metadata';
import { resolve } from 'node:path';
import { runUntilSignalled } from '@shoal/runtime';
import { apiConfigFromEnv } from './api.config';
import { buildApiApp } from './create-api-app';

runUntilSignalled('api', async () => {
  const config = apiConfigFromEnv(process.env);
  const app = await buildApiApp(config);
  const address = app.getHttpServer().address() as { port: number };
  process.stdout.write(
    `api: listening on http://127.0.0.1:${address.port} (token in ${resolve(config.dataDir, 'admin.token')}) and unix:${resolve(config.socketPath)}\n`,
  );
  return app;
});
