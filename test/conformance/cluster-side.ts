/**
 * A Shoal side with a node of its own, for what needs tasks and logs: `shoal run api`,
 * `allocator`, `orchestrator`, `scheduler` and `dispatcher` on the real broker, and one
 * simulated agent (`shoal agent --simulate 1`) joined through the dispatcher, as the
 * engine is one node in swarm mode. Answers on its unix socket; every address is loopback.
 */
import { join } from 'node:path';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import { exchange } from './engine-http';
import type { ShoalSide } from './sides';

export interface ShoalNodeSide extends ShoalSide {
  /** The simulated node's id, as `/nodes` lists it. */
  readonly nodeId: string;
}

export const startShoalWithNode = async (name: string): Promise<ShoalNodeSide> => {
  const deployment = ShoalProcesses.onKafka(name, { SHOAL_API_PORT: '0', SHOAL_HEALTH_PORT: '0', SHOAL_DISPATCHER_PORT: '0' });
  try {
    await deployment.cli(['run', 'api']).waitFor(/api: listening on http:\/\/127\.0\.0\.1:(\d+)/, 90_000);
    const socket = join(deployment.dataDir, 'shoal.sock');
    const init = await exchange(socket, 'POST', '/v1.41/swarm/init', { ListenAddr: '127.0.0.1:2377', AdvertiseAddr: '127.0.0.1' });
    if (init.status !== 200) throw new Error(`Shoal's swarm init: ${init.status} ${JSON.stringify(init.body)}`);
    for (const component of ['allocator', 'orchestrator', 'scheduler']) {
      await deployment.cli(['run', component]).waitFor(/health on http:\/\/127\.0\.0\.1:(\d+)\/healthz/, 90_000);
    }
    const [, agents] = await deployment.cli(['run', 'dispatcher']).waitFor(/dispatcher: agents on (127\.0\.0\.1:\d+)/, 90_000);
    const swarm = await exchange(socket, 'GET', '/v1.41/swarm');
    const token = (swarm.body as { JoinTokens: { Worker: string } }).JoinTokens.Worker;
    deployment.cli(['agent', '--simulate', '1', '--join-token', token, '--dispatcher', agents!, '--hostname-prefix', `${name}-node-`]);
    // Until the node is listed ready (the control plane is listed too, drained).
    let nodeId = '';
    for (let attempt = 0; attempt < 300 && !nodeId; attempt++) {
      const nodes = (await exchange(socket, 'GET', '/v1.41/nodes')).body as { ID: string; Spec: { Availability: string }; Status: { State: string } }[];
      nodeId = nodes.find((node) => node.Spec.Availability === 'active' && node.Status.State === 'ready')?.ID ?? '';
      if (!nodeId) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (!nodeId) throw new Error('the simulated node did not become ready in 60 s');
    return { socket, nodeId, close: () => deployment.close() };
  } catch (error) {
    await deployment.close();
    throw error;
  }
};
