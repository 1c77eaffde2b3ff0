/**
 * `npm start`: Shoal in one process. The log (embedded in $SHOAL_DATA_DIR, or Kafka with
 * KAFKA_BROKERS), the cluster's view of it, and the components as this build has them.
 */
import 'reflect-metadata';
import { join, resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { stateHash } from '@shoal/domain';
import { runUntilSignalled } from '@shoal/runtime';
import { ShoalModule } from './shoal.module';
import { ShoalRunner } from './shoal.runner';
import { configFromEnv } from './shoal.config';

runUntilSignalled('shoal', async () => {
  const config = configFromEnv(process.env);
  const app = await NestFactory.createApplicationContext(ShoalModule.forRoot(config), { logger: ['error', 'warn'] });
  const runner = app.get(ShoalRunner);
  const view = await runner.start();
  const cluster = view.state.cluster;
  const log = config.brokers.length > 0 ? `Kafka ${config.brokers.join(',')}` : `embedded log in ${resolve(config.dataDir, 'log')}`;
  const lines = [
    `Shoal is up — all in one process`,
    `  log        ${log} (${view.position} records)`,
    `  cluster    ${cluster?.id} (state hash ${stateHash(view.state).slice(0, 16)}…)`,
    `  API        will listen on http://127.0.0.1:${config.apiPort} and unix:${resolve(join(config.dataDir, 'shoal.sock'))}`,
    `  running    ${runner.running.join(', ')}; snapshots every ${config.snapshotEveryMs / 1000} s and on shutdown`,
    `  audit      npx shoal audit verify`,
    `Ctrl-C stops it.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return app;
});
