/**
 * Testcontainers against the run's test engine. Its Ryuk reaper image cannot be pulled here
 * (no registry answers), so the reaper is off and a test stops what it started: every
 * container and network goes into a TestcontainersScope, and `scope.stop()` (in afterAll)
 * stops them, newest first.
 */
import type { StartedNetwork, StartedTestContainer } from 'testcontainers';
import type * as Testcontainers from 'testcontainers';
import { testEngine } from './test-engine';

/** The bridge driver's option that makes a network's published ports bind one address. */
const HOST_BINDING_IPV4 = 'com.docker.network.bridge.host_binding_ipv4';

/**
 * Points Testcontainers at the test engine (DOCKER_HOST, the reaper off, published ports
 * read on 127.0.0.1) in this process; returns the engine's address or throws as testEngine()
 * does. Call it before the first Testcontainers call of the process.
 */
export const useTestEngineForTestcontainers = (env: NodeJS.ProcessEnv = process.env): string => {
  const host = testEngine(env);
  env.DOCKER_HOST = host;
  env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  env.TESTCONTAINERS_HOST_OVERRIDE = '127.0.0.1';
  return host;
};

/**
 * A Testcontainers network whose published ports bind 127.0.0.1, as the default bridge's do
 * on the test engine (its --ip): a user network of the engine's would bind 0.0.0.0.
 */
export const startLoopbackNetwork = async (): Promise<StartedNetwork> => {
  // Required here, not at the top: nothing of Testcontainers loads for a test that never asks for it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { StartedNetwork: Started, getContainerRuntimeClient, randomUuid } = require('testcontainers') as typeof Testcontainers;
  const client = await getContainerRuntimeClient();
  const name = `shoal-test-${randomUuid()}`;
  const network = await client.network.create({ Name: name, CheckDuplicate: true, Driver: 'bridge', Options: { [HOST_BINDING_IPV4]: '127.0.0.1' } });
  return new Started(client, name, network);
};

type Stoppable = Pick<StartedTestContainer, 'stop'> | Pick<StartedNetwork, 'stop'>;

/** What a test started through Testcontainers, to stop explicitly. */
export class TestcontainersScope {
  private readonly started: Stoppable[] = [];

  /** Keeps `thing` (a started container or network) to stop later; returns it. */
  add<T extends Stoppable>(thing: T): T {
    this.started.push(thing);
    return thing;
  }

  /** Stops everything added, newest first (containers before the networks they are on); the first failure is rethrown after the rest. */
  async stop(): Promise<void> {
    let failure: unknown;
    for (const thing of this.started.splice(0).reverse()) {
      try {
        await thing.stop();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }
}
