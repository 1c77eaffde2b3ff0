/**
 * Finds (or starts) the Docker engine a test run uses: the one SHOAL_TEST_ENGINE names, or
 * else a LocalDockerEngine of the run's own, in swarm mode (on docker0, or on a bridge of its
 * own where another engine has docker0; SHOAL_TEST_ENGINE_BRIDGE names one); either way with the offline test
 * images (test-images.ts) on it.
 */
import { existsSync } from 'node:fs';
import { dockerAnswers } from '../broker/docker-probe';
import { DOCKERD_MISSING, LocalDockerEngine, dockerdInstalled } from './local-engine';
import { buildTestImages } from './test-images';

export interface FoundEngine {
  /** DOCKER_HOST for it: `unix://…/docker.sock`. */
  readonly host: string;
  /** One line for the test output: what it is, where, how long it took. */
  readonly description: string;
  /** Stops what findTestEngine started (nothing for SHOAL_TEST_ENGINE). */
  stop(): Promise<void>;
}

export const NO_ENGINE_MESSAGE =
  `no Docker engine for the tests: SHOAL_TEST_ENGINE is not set and ${DOCKERD_MISSING}; ` +
  'then `npm test` starts an engine of its own, or set SHOAL_TEST_ENGINE=unix:///path/to/docker.sock to use one that runs';

const took = (started: number) => `${((Date.now() - started) / 1000).toFixed(1)} s`;

export const findTestEngine = async (env: NodeJS.ProcessEnv = process.env): Promise<FoundEngine> => {
  const started = Date.now();
  const given = env.SHOAL_TEST_ENGINE?.trim();
  if (given) {
    if (!/^(unix|tcp):\/\//.test(given)) throw new Error(`SHOAL_TEST_ENGINE=${given}: expected unix:///path/to/docker.sock or tcp://host:port`);
    if (!(await dockerAnswers({ DOCKER_HOST: given }, 5_000))) {
      throw new Error(`SHOAL_TEST_ENGINE=${given} does not answer /_ping: start that engine, or unset SHOAL_TEST_ENGINE to let the tests start their own`);
    }
    const built = buildTestImages(given);
    return { host: given, description: `SHOAL_TEST_ENGINE at ${given} (ready in ${took(started)}${built.length ? `, built ${built.join(', ')}` : ''})`, stop: async () => undefined };
  }
  if (!dockerdInstalled()) throw new Error(NO_ENGINE_MESSAGE);
  const bridge = env.SHOAL_TEST_ENGINE_BRIDGE?.trim();
  // A docker0 here is another engine's (a fresh CI machine has none): then a bridge of its own.
  const engine = await LocalDockerEngine.start(bridge ? { bridge } : { ownBridge: existsSync('/sys/class/net/docker0') });
  try {
    buildTestImages(engine.host);
  } catch (error) {
    await engine.stop();
    throw error;
  }
  return {
    host: engine.host,
    description: `dockerd ${engine.pid} in swarm mode at ${engine.host} (bridge ${bridge ?? engine.ownBridge?.name ?? 'docker0'}) with the test images (ready in ${took(started)}; log ${engine.logFile})`,
    stop: () => engine.stop(),
  };
};
