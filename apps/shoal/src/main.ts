/**
 * `npm start`: Shoal in one process. The log (embedded in $SHOAL_DATA_DIR, or Kafka with
 * KAFKA_BROKERS), the cluster's view of it, and the components as this build has them.
 */
import 'reflect-metadata';
import { join, resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { stateHash } from '@shoal/domain';
import { ShoalModule } from './shoal.module';
import { ShoalRunner } from './shoal.runner';
import { configFromEnv } from './shoal.config';

const bootstrap = async (): Promise<void> => {
  const config = configFromEnv(process.env);
  const app = await NestFactory.createApplicationContext(ShoalModule.forRoot(config), { logger: ['error', 'warn'] });
  // Stop cleanly on Ctrl-C or SIGTERM: shutdown hooks save a snapshot and close the log.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`shoal: stopping failed: ${String(error)}\n`);
          process.exit(1);
        },
      );
    });
  }
  const view = await app.get(ShoalRunner).start();
  const cluster = view.state.cluster;
  const log = config.brokers.length > 0 ? `Kafka ${config.brokers.join(',')}` : `embedded log in ${resolve(config.dataDir, 'log')}`;
  const lines = [
    `Shoal is up — all in one process`,
    `  log        ${log} (${view.position} records)`,
    `  cluster    ${cluster?.id} (state hash ${stateHash(view.state).slice(0, 16)}…)`,
    `  API        will listen on http://127.0.0.1:${config.apiPort} and unix:${resolve(join(config.dataDir, 'shoal.sock'))}`,
    `  running    event log, live view, snapshots every ${config.snapshotEveryMs / 1000} s and on shutdown`,
    `  audit      npx shoal audit verify`,
    `Ctrl-C stops it.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
};

bootstrap().catch((error: unknown) => {
  process.stderr.write(`shoal: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
