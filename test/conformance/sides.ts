/**
 * The two sides of the differential suite: the test run's Docker engine, in swarm mode, and
 * Shoal's API as its own process on the real broker. No engine is a failure, never a skip.
 */
import { join } from 'node:path';
import { freePorts } from '../../infra/kafka/broker';
import { testEngine } from '../../libs/testing/src/engine/test-engine';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import type { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';
import { exchange, socketPathOf } from './engine-http';

/** The socket of the engine jest's global setup names (`testEngine()`), which throws saying how to give one. */
export const conformanceEngine = (env: NodeJS.ProcessEnv = process.env): string => socketPathOf(testEngine(env));

/** The engine in swarm mode: initialised on 127.0.0.1 when it is not yet a manager. */
export const ensureSwarm = async (socket: string): Promise<void> => {
  const info = await exchange(socket, 'GET', '/v1.41/info');
  const state = (info.body as { Swarm?: { LocalNodeState?: string } }).Swarm?.LocalNodeState;
  if (state === 'active') return;
  const [port] = (await freePorts(1)) as [number];
  const init = await exchange(socket, 'POST', '/v1.41/swarm/init', { ListenAddr: `127.0.0.1:${port}`, AdvertiseAddr: '127.0.0.1' });
  if (init.status !== 200) throw new Error(`the test engine could not enter swarm mode: ${init.status} ${JSON.stringify(init.body)}`);
};

export interface ShoalSide {
  readonly socket: string;
  close(): Promise<void>;
}

/** A Shoal side whose API can restart, as a manager's engine restarts. */
export interface RestartableShoalSide extends ShoalSide {
  /** `shoal run api` stopped, then started again on the same data dir and log, until it listens; the other components keep running. */
  restartApi(): Promise<void>;
}

/**
 * `shoal run api`, `shoal run allocator` and `shoal run orchestrator` on the real broker, its swarm
 * initialised (unless `init: false`, for a test that initialises it); answers on its unix socket. The allocator gives subnets, VIPs and published ports,
 * and the orchestrator completes updates and rollbacks, as the engine's do.
 */
export const startShoal = async (name: string, options: { readonly init?: boolean } = {}): Promise<RestartableShoalSide> => {
  const deployment = ShoalProcesses.onKafka(name, { SHOAL_API_PORT: '0', SHOAL_HEALTH_PORT: '0' });
  try {
    const startApi = async (): Promise<ShoalProcess> => {
      const started = deployment.cli(['run', 'api']);
      await started.waitFor(/api: listening on http:\/\/127\.0\.0\.1:(\d+)/, 90_000);
      return started;
    };
    let api = await startApi();
    // The orchestrator too: it is what completes an update or a rollback (UpdateStatus), as the engine's does.
    for (const component of ['allocator', 'orchestrator']) {
      await deployment.cli(['run', component]).waitFor(/health on http:\/\/127\.0\.0\.1:(\d+)\/healthz/, 90_000);
    }
    const socket = join(deployment.dataDir, 'shoal.sock');
    if (options.init ?? true) {
      const init = await exchange(socket, 'POST', '/v1.41/swarm/init', { ListenAddr: '127.0.0.1:2377', AdvertiseAddr: '127.0.0.1' });
      if (init.status !== 200) throw new Error(`Shoal's swarm init: ${init.status} ${JSON.stringify(init.body)}`);
    }
    const restartApi = async (): Promise<void> => {
      const code = await api.stop();
      if (code !== 0) throw new Error(`shoal run api exited with ${String(code)} when stopped for a restart`);
      api = await startApi();
    };
    return { socket, restartApi, close: () => deployment.close() };
  } catch (error) {
    await deployment.close();
    throw error;
  }
};
