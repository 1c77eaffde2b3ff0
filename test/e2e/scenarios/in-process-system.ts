/**
 * The in-process system under test: the API in this process on an embedded log (apps/api's
 * harness); the test writes what the allocator, orchestrator, scheduler, dispatcher and
 * agents would, stamped with the wall clock as theirs are.
 */
import { LOG_LEVEL, TaskState } from '@shoal/contracts';
import type { EventDataMap, EventOf, EventType, ShoalEvent } from '@shoal/contracts';
import { INGRESS_NETWORK_SPEC } from '@shoal/domain';
import { nodeDescription } from '@shoal/testing';
import type { EventOptions } from '@shoal/testing';
import { startApi } from '../../../apps/api/src/testing/api-harness';
import type { ApiHarness } from '../../../apps/api/src/testing/api-harness';
import { AUDITOR, NODE_1, SPARE, serviceNamed } from './system-under-test';
import type { RunningSystem } from './system-under-test';

/** The node ids the dispatcher would give each hostname. */
const NODE_IDS: Record<string, string> = {
  [NODE_1]: 'n1aaaaaaaaaaaaaaaaaaaaaaa',
  [SPARE]: 'n2bbbbbbbbbbbbbbbbbbbbbbb',
  'late-1': 'n3ccccccccccccccccccccccc',
  'live-1': 'n4ddddddddddddddddddddddd',
};

/** The API in this process on an embedded log; the test writes what the other components would. */
export const startInProcess = async (): Promise<RunningSystem> => {
  const api: ApiHarness = await startApi({ tokens: [{ token: AUDITOR, role: 'auditor' }], logLevel: LOG_LEVEL });
  // Events stamped with the wall clock, as the components stamp theirs, so that `docker events --since` finds them beside the API's.
  const b = {
    event: <K extends EventType>(type: K, data: EventDataMap[K], options: EventOptions = {}): EventOf<K> => api.events.event(type, data, { at: new Date().toISOString(), ...options }),
    now: (): string => new Date().toISOString(),
  };
  const nodeId = (hostname: string): string => {
    const id = NODE_IDS[hostname];
    if (!id) throw new Error(`no node ${hostname}`);
    return id;
  };
  const register = (hostname: string): ShoalEvent => b.event('NodeRegistered', { id: nodeId(hostname), description: nodeDescription(hostname), role: 'worker', addr: '127.0.0.1' });
  // What the allocator writes as it starts on an initialised cluster: the ingress network, with the subnet an engine in swarm mode gives it.
  const ingress = 'ingress000000000000000000';
  await api.append(
    b.event('NetworkCreated', { id: ingress, spec: INGRESS_NETWORK_SPEC }, { by: 'allocator' }),
    b.event('NetworkAllocated', { id: ingress, subnet: '10.0.0.0/24', gateway: '10.0.0.1' }, { by: 'allocator' }),
    register(NODE_1),
    register(SPARE),
  );
  let next = 0;
  /** The tasks the orchestrator would create for the service, allocated with an address on each of its networks. */
  const createAndAllocate = async (name: string, replicas: number, job: boolean): Promise<string[]> => {
    const service = serviceNamed(api.view.state, name);
    const ids = Array.from({ length: replicas }, () => `task${++next}`);
    const networks = (service.spec.task.networks ?? []).map((n) => [...api.view.state.networks.values()].find((net) => net.id === n.target || net.spec.name === n.target)!);
    const unallocated = networks.filter((network) => network.subnet === undefined);
    await api.append(
      ...unallocated.map((network, i) => b.event('NetworkAllocated', { id: network.id, subnet: `10.0.${200 + i}.0/24`, gateway: `10.0.${200 + i}.1` })),
      b.event('TasksCreated', {
        tasks: ids.map((id, i) => ({ id, serviceId: service.id, slot: i + 1, specVersion: service.version, spec: service.spec.task, desiredState: TaskState.RUNNING, ...(job ? { jobIteration: 0 } : {}) })),
      }),
    );
    await api.append(
      b.event('TasksAllocated', {
        tasks: ids.map((id, i) => ({
          id,
          attachments: networks.map((network) => {
            const subnet = api.view.state.networks.get(network.id)!.subnet!;
            return { network: network.id, addresses: [`${subnet.split('.').slice(0, 3).join('.')}.${10 + i}/24`] };
          }),
        })),
      }),
    );
    return ids;
  };
  return {
    kind: 'in-process',
    dataDir: api.dataDir,
    cluster: api.cluster,
    adminToken: api.adminToken,
    docker: (args, options) => api.docker(args, options),
    state: () => Promise.resolve(api.view.state),
    nodeId,
    async tasksRun(name, { replicas, running, node, settleMs = 0 }) {
      const ids = await createAndAllocate(name, replicas, false);
      const placed = ids.slice(0, running);
      await api.append(b.event('TasksAssigned', { tasks: placed.map((id) => ({ id, nodeId: nodeId(node), why: 'test' })) }));
      // A CLI that follows the tasks sees them assigned before they run.
      if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
      await api.append(b.event('TaskStatusesReported', { nodeId: nodeId(node), statuses: placed.map((id) => ({ id, state: TaskState.RUNNING, at: b.now() })) }));
      return { running: placed, pending: ids.slice(running) };
    },
    async tasksComplete(name, { replicas, node }) {
      const ids = await createAndAllocate(name, replicas, true);
      await api.append(b.event('TasksAssigned', { tasks: ids.map((id) => ({ id, nodeId: nodeId(node), why: 'test' })) }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await api.append(b.event('TaskStatusesReported', { nodeId: nodeId(node), statuses: ids.map((id) => ({ id, state: TaskState.COMPLETE, at: b.now(), exitCode: 0 })) }));
    },
    addNode: (hostname) => api.append(register(hostname)),
    nodeDown: (hostname) => api.append(b.event('NodeStatusChanged', { nodes: [{ id: nodeId(hostname), state: 'down' }] })),
    forgetNode: () => Promise.resolve(),
    close: () => api.close(),
  };
};
