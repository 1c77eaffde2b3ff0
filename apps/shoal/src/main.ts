/**
 * `npm start`: Shoal in one process — the control plane, the API, the dispatcher and a few
 * simulated nodes on one log (embedded in $SHOAL_DATA_DIR, or Kafka with KAFKA_BROKERS).
 */
import 'reflect-metadata';
import { join, resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { stateHash } from '@shoal/domain';
import { PinoNestLogger, runUntilSignalled, shoalLogger } from '@shoal/runtime';
import { ShoalModule } from './shoal.module';
import { ShoalRunner } from './shoal.runner';
import { configFromEnv } from './shoal.config';
import { DEFAULT_API_HOST, describeListener, exposureWarning } from '../../api/src/tls/api-listen-settings';

runUntilSignalled('shoal', async () => {
  const config = configFromEnv(process.env);
  const listen = config.apiListen ?? { host: DEFAULT_API_HOST };
  const warning = exposureWarning(listen);
  if (warning) process.stderr.write(`${warning}\n`);
  const app = await NestFactory.createApplicationContext(ShoalModule.forRoot(config), { logger: new PinoNestLogger(shoalLogger()) });
  const runner = app.get(ShoalRunner);
  const { view, apiPort, dispatcherPort } = await runner.start();
  const cluster = view.state.cluster;
  const socket = resolve(join(config.dataDir, 'shoal.sock'));
  const log = config.brokers.length > 0 ? `Kafka ${config.brokers.join(',')}` : `embedded log in ${resolve(config.dataDir, 'log')}`;
  const lines = [
    `Shoal is up — all in one process`,
    `  log        ${log} (${view.position} records)`,
    `  cluster    ${cluster?.id} (state hash ${stateHash(view.state).slice(0, 16)}…)`,
    `  API        unix:${socket} (no token) and ${describeListener(listen, apiPort)} (token in ${resolve(join(config.dataDir, 'admin.token'))})`,
    `  console    ${describeListener(listen, apiPort).split(' ')[0]}/console (the same token)`,
    `  agents     join at 127.0.0.1:${dispatcherPort} with the token from \`docker swarm join-token worker\``,
    config.executor === 'docker'
      ? `  nodes      1, this host: tasks are containers on the Docker engine at ${config.engine}`
      : `  nodes      ${runner.simulatedNodes} simulated (SHOAL_SIM_NODES to change; SHOAL_EXECUTOR=docker for real containers)`,
    `  running    ${runner.running.join(', ')}; snapshots every ${config.snapshotEveryMs / 1000} s and on shutdown`,
    `  try        DOCKER_HOST=unix://${socket} docker service create --name web --replicas 3 nginx`,
    `  audit      curl --unix-socket ${socket} http://localhost/shoal/v1/audit/verify  (or, once stopped, npx shoal audit verify)`,
    `Ctrl-C stops it.`,
  ];
  shoalLogger().info({ api: `http://127.0.0.1:${apiPort}`, socket, dispatcher: `127.0.0.1:${dispatcherPort}`, cluster: cluster?.id, offset: view.position }, lines.join('\n'));
  return app;
});
