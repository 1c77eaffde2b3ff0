import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import { EventBuilder, given, newTask, nodeDescription, serviceSpec, keptJoinTokens } from '@shoal/testing';

describe('evolve: nodes', () => {
  let b: EventBuilder;
  beforeEach(() => (b = new EventBuilder()));
  const registered = (id = 'n1') => b.event('NodeRegistered', { id, role: 'worker', description: nodeDescription(id), addr: '127.0.0.1' });

  it('NodeRegistered adds a ready, active node at version 1', () => {
    given()
      .when(registered())
      .thenApplied((state) =>
        expect(state.nodes.get('n1')).toMatchObject({
          version: 1,
          spec: { role: 'worker', availability: 'active', labels: {} },
          status: { state: 'ready', addr: '127.0.0.1' },
        }),
      );
  });

  it('NodeRegistered again refreshes the description and keeps the operator’s spec', () => {
    given(registered(), b.event('NodeSpecUpdated', { id: 'n1', spec: { labels: { zone: 'a' }, role: 'worker', availability: 'pause' } }))
      .when(b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('renamed') }))
      .thenApplied((state) => {
        const node = state.nodes.get('n1');
        expect(node?.description.hostname).toBe('renamed');
        expect(node?.spec).toEqual({ labels: { zone: 'a' }, role: 'worker', availability: 'pause' });
        expect(node?.version).toBe(2);
      });
  });

  it('NodeStatusChanged sets each node’s state and refuses unknown nodes', () => {
    given(registered('n1'))
      .when(b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down', message: 'heartbeat failure' }, { id: 'n2', state: 'down' }] }))
      .thenPartial(/node n2 not found/, (state) => {
        expect(state.nodes.get('n1')?.status).toMatchObject({ state: 'down', message: 'heartbeat failure', addr: '127.0.0.1' });
      });
  });

  it('NodeSpecUpdated sets availability, role and labels and bumps the version', () => {
    given(registered())
      .when(b.event('NodeSpecUpdated', { id: 'n1', spec: { labels: { zone: 'b' }, role: 'manager', availability: 'drain' } }))
      .thenApplied((state) => {
        expect(state.nodes.get('n1')?.spec).toEqual({ labels: { zone: 'b' }, role: 'manager', availability: 'drain' });
        expect(state.nodes.get('n1')?.version).toBe(2);
      });
  });

  it('NodeSpecUpdated of a missing node is refused', () => {
    given().when(b.event('NodeSpecUpdated', { id: 'n1', spec: { labels: {}, role: 'worker', availability: 'active' } })).thenRejected(/not found/);
  });

  it('NodeRemoved refuses a node that is not down, as Docker does', () => {
    given(registered()).when(b.event('NodeRemoved', { id: 'n1' })).thenRejected(/node n1 is not down and can't be removed/);
  });

  it('NodeRemoved removes a down node, or any node with force', () => {
    given(registered(), b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] }))
      .when(b.event('NodeRemoved', { id: 'n1' }))
      .thenApplied((state) => expect(state.nodes.has('n1')).toBe(false));
    given(registered()).when(b.event('NodeRemoved', { id: 'n1', force: true })).thenApplied((state) => expect(state.nodes.size).toBe(0));
  });

  it('NodeRemoved of a missing node is refused', () => {
    given().when(b.event('NodeRemoved', { id: 'n1' })).thenRejected(/not found/);
  });

  describe('NodeRemoved --force of a node with tasks', () => {
    const spec = serviceSpec('web');
    const withTasks = (logLevel?: number) => [
      b.event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }), ...(logLevel ? { logLevel } : {}) }),
      registered('n1'),
      b.event('ServiceCreated', { id: 's1', spec }),
      b.event('TasksCreated', { tasks: [newTask('t1', 's1', spec, { slot: 1 }), newTask('t2', 's1', spec, { slot: 2 })] }),
      b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }, { id: 't2', attachments: [] }] }),
      b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'test' }, { id: 't2', nodeId: 'n1', why: 'test' }] }),
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }, { id: 't2', state: TaskState.FAILED, at: b.now() }] }),
    ];

    it('on a log at level 3, orphans the tasks not yet ended in the same record, as SwarmKit: they no longer count as running', () => {
      given(...withTasks(3))
        .when(b.event('NodeRemoved', { id: 'n1', force: true }))
        .thenApplied((state) => {
          expect(state.nodes.has('n1')).toBe(false);
          expect(state.tasks.get('t1')?.status).toMatchObject({ state: TaskState.ORPHANED, message: 'Task belonged to a node that has been deleted' });
          expect(state.tasks.get('t2')?.status.state).toBe(TaskState.FAILED);
        });
    });

    it('on a log below level 3, leaves them as the builds before it did', () => {
      given(...withTasks(2))
        .when(b.event('NodeRemoved', { id: 'n1', force: true }))
        .thenApplied((state) => expect(state.tasks.get('t1')?.status.state).toBe(TaskState.RUNNING));
    });
  });
});
