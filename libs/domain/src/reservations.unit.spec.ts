import { TaskState } from '@shoal/contracts';
import type { PortConfig, ServiceSpec, ShoalEvent } from '@shoal/contracts';
import { EventBuilder, given, newTask, nodeDescription, serviceSpec } from '@shoal/testing';

const { FAILED } = TaskState;

describe('evolve refuses an assignment the node cannot hold: generic resources and host-mode ports', () => {
  const b = new EventBuilder();
  const gpuNode = b.event('NodeRegistered', {
    id: 'n1',
    role: 'worker',
    description: nodeDescription('n1', { resources: { nanoCpus: 8e9, memoryBytes: 2 ** 33, generic: [{ kind: 'gpu', named: 'GPU-0' }, { kind: 'gpu', named: 'GPU-1' }, { kind: 'ssd', discrete: 1 }] } }),
  });
  const spec = (id: string, task: Partial<ServiceSpec['task']>): ServiceSpec => serviceSpec(id, undefined, { task: { container: { image: 'x' }, ...task } });
  const ml = spec('ml', { resources: { reservations: { generic: [{ kind: 'gpu', discrete: 1 }] } } });
  const create = (id: string, serviceId: string, s: ServiceSpec) => b.event('TasksCreated', { tasks: [newTask(id, serviceId, s)] });
  const allocate = (id: string, ports?: PortConfig[]) => b.event('TasksAllocated', { tasks: [{ id, attachments: [], ...(ports ? { ports } : {}) }] });
  const assign = (id: string) => b.event('TasksAssigned', { tasks: [{ id, nodeId: 'n1', why: 'test' }] });

  it('refuses a third GPU on a two-GPU node', () => {
    const history: ShoalEvent[] = [gpuNode, b.event('ServiceCreated', { id: 'ml', spec: ml })];
    for (const id of ['t1', 't2', 't3']) history.push(create(id, 'ml', ml), allocate(id));
    history.push(assign('t1'), assign('t2'));
    given(...history)
      .when(assign('t3'))
      .thenRejected(/node n1 is over capacity: insufficient gpu/);
  });

  it('frees the units when the task ends, so the next one fits', () => {
    const history: ShoalEvent[] = [gpuNode, b.event('ServiceCreated', { id: 'ml', spec: ml })];
    for (const id of ['t1', 't2', 't3']) history.push(create(id, 'ml', ml), allocate(id));
    history.push(assign('t1'), assign('t2'), b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: FAILED, at: b.now() }] }));
    given(...history)
      .when(assign('t3'))
      .thenApplied((state) => expect(state.reserved.get('n1')?.generic).toEqual(new Map([['gpu', 2]])));
  });

  it('refuses a second task publishing the same host-mode port on one node, and allows another protocol', () => {
    const tcp: PortConfig[] = [{ protocol: 'tcp', targetPort: 80, publishedPort: 8080, publishMode: 'host' }];
    const udp: PortConfig[] = [{ protocol: 'udp', targetPort: 80, publishedPort: 8080, publishMode: 'host' }];
    const web = spec('web', {});
    const history: ShoalEvent[] = [gpuNode, b.event('ServiceCreated', { id: 'web', spec: web })];
    history.push(create('a', 'web', web), allocate('a', tcp), create('b', 'web', web), allocate('b', tcp), create('c', 'web', web), allocate('c', udp), assign('a'));
    given(...history)
      .when(assign('b'))
      .thenRejected(/node n1 already has host-mode port tcp\/8080 in use/);
    given(...history)
      .when(assign('c'))
      .thenApplied((state) => expect(state.reserved.get('n1')?.hostPorts).toEqual(new Map([['tcp/8080', 1], ['udp/8080', 1]])));
  });
});
