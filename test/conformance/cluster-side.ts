/**
 * A Shoal side with a node of its own, for what needs tasks and logs: `shoal run api`,
 * `allocator`, `orchestrator`, `scheduler`, `reaper` (which removes a task stood down
 * for good once it has stopped, as SwarmKit's task reaper) and `dispatcher` on the real
 * broker, and one
 * agent joined through the dispatcher, as the engine is one node in swarm mode: a
 * simulated one (`shoal agent --simulate 1`), or one on the docker executor that runs its
 * tasks as containers on the test's engine, for tasks that run and print; or none yet, its
 * nodes joining (and their agents stopping) when the test says, as machines join and leave
 * a swarm (startShoalCluster). Answers on its unix socket; every address is loopback.
 */
import { join } from 'node:path';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import { exchange, socketPathOf } from './engine-http';
import type { ShoalSide } from './sides';

/** The node's agent: the docker executor on `engine` (DOCKER_HOST form), its node named `hostname`. */
export interface DockerAgent {
  readonly engine: string;
  readonly hostname: string;
}

/** The label the docker executor puts on each container with its node's id (SwarmKit's). */
const NODE_ID_LABEL = 'com.docker.swarm.node.id';

export interface ShoalNodeSide extends ShoalSide {
  /** The node's id, as `/nodes` lists it. */
  readonly nodeId: string;
}

/** A `shoal agent` joined to a ShoalCluster: its node, and the agent stopped as a machine leaves. */
export interface JoinedAgent {
  /** The node's id, as `/nodes` lists it. */
  readonly nodeId: string;
  /** SIGTERM to the agent; its exit code once it has stopped. */
  stop(): Promise<number | null>;
}

/** A Shoal side whose nodes join when the test says, as machines join a swarm. */
export interface ShoalCluster extends ShoalSide {
  /** A worker join token of the cluster (`GET /swarm`'s `JoinTokens.Worker`). */
  readonly workerToken: string;
  /**
   * `shoal agent --join-token <worker token>`: simulated, or on the docker executor on
   * `docker.engine` named `docker.hostname`; resolves once `/nodes` lists its node ready
   * and active. With `docker`, the node's containers are removed on close.
   */
  join(docker?: DockerAgent): Promise<JoinedAgent>;
}

/** `shoal run api`, its swarm initialised, then `allocator`, `orchestrator`, `scheduler`, `reaper` and `dispatcher`: no node yet. */
export const startShoalCluster = async (name: string): Promise<ShoalCluster> => {
  const deployment = ShoalProcesses.onKafka(name, { SHOAL_API_PORT: '0', SHOAL_HEALTH_PORT: '0', SHOAL_DISPATCHER_PORT: '0' });
  const nodesOnEngines: { engine: string; nodeId: string }[] = [];
  const close = async (): Promise<void> => {
    await deployment.close();
    for (const { engine, nodeId } of nodesOnEngines.splice(0)) await removeContainers(engine, nodeId);
  };
  try {
    await deployment.cli(['run', 'api']).waitFor(/api: listening on http:\/\/127\.0\.0\.1:(\d+)/, 90_000);
    const socket = join(deployment.dataDir, 'shoal.sock');
    const init = await exchange(socket, 'POST', '/v1.41/swarm/init', { ListenAddr: '127.0.0.1:2377', AdvertiseAddr: '127.0.0.1' });
    if (init.status !== 200) throw new Error(`Shoal's swarm init: ${init.status} ${JSON.stringify(init.body)}`);
    for (const component of ['allocator', 'orchestrator', 'scheduler', 'reaper']) {
      await deployment.cli(['run', component]).waitFor(/health on http:\/\/127\.0\.0\.1:(\d+)\/healthz/, 90_000);
    }
    const [, agents] = await deployment.cli(['run', 'dispatcher']).waitFor(/dispatcher: agents on (127\.0\.0\.1:\d+)/, 90_000);
    const swarm = await exchange(socket, 'GET', '/v1.41/swarm');
    const workerToken = (swarm.body as { JoinTokens: { Worker: string } }).JoinTokens.Worker;
    const joinNode = async (docker?: DockerAgent): Promise<JoinedAgent> => {
      const listed = async () => (await exchange(socket, 'GET', '/v1.41/nodes')).body as { ID: string; Spec: { Availability: string }; Status: { State: string } }[];
      const before = new Set((await listed()).map((node) => node.ID));
      const options = docker
        ? ['--executor', 'docker', '--engine', docker.engine, '--publish-address', '127.0.0.1', '--hostname', docker.hostname, '--state-dir', join(deployment.dataDir, `agent-${before.size}`)]
        : ['--simulate', '1', '--hostname-prefix', `${name}-node-`];
      const agent = deployment.cli(['agent', ...options, '--join-token', workerToken, '--dispatcher', agents!]);
      // Until its node is listed ready (the control plane is listed too, drained).
      let nodeId = '';
      for (let attempt = 0; attempt < 300 && !nodeId; attempt++) {
        nodeId = (await listed()).find((node) => !before.has(node.ID) && node.Spec.Availability === 'active' && node.Status.State === 'ready')?.ID ?? '';
        if (!nodeId) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      if (!nodeId) throw new Error(`the node did not become ready in 60 s:\n${agent.output}`);
      if (docker) nodesOnEngines.push({ engine: docker.engine, nodeId });
      return { nodeId, stop: () => agent.stop() };
    };
    return { socket, workerToken, join: joinNode, close };
  } catch (error) {
    await close();
    throw error;
  }
};

/**
 * A ShoalCluster with one node joined: with `docker`, the node's containers are removed on
 * close (the agent, stopped, leaves them for the next agent of its node to adopt).
 */
export const startShoalWithNode = async (name: string, docker?: DockerAgent): Promise<ShoalNodeSide> => {
  const cluster = await startShoalCluster(name);
  try {
    const { nodeId } = await cluster.join(docker);
    return { socket: cluster.socket, nodeId, close: () => cluster.close() };
  } catch (error) {
    await cluster.close();
    throw error;
  }
};

/** Every container of the node `nodeId` on `engine`, removed. */
const removeContainers = async (engine: string, nodeId: string): Promise<void> => {
  if (!nodeId) return;
  const socket = socketPathOf(engine);
  const filters = encodeURIComponent(JSON.stringify({ label: [`${NODE_ID_LABEL}=${nodeId}`] }));
  const containers = (await exchange(socket, 'GET', `/v1.41/containers/json?all=1&filters=${filters}`)).body as { Id: string }[];
  for (const container of containers) await exchange(socket, 'DELETE', `/v1.41/containers/${container.Id}?force=1&v=1`);
};
