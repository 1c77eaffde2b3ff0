import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { EventBuilder, given, keptJoinTokens, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { stateHash } from './state-hash';

const { NEW, PENDING, ASSIGNED, ACCEPTED, STARTING, RUNNING, COMPLETE, SHUTDOWN, FAILED, READY, REMOVE, ORPHANED } = TaskState;

describe('evolve: tasks', () => {
  let b: EventBuilder;
  const spec = serviceSpec('web', { kind: 'replicated', replicas: 2 }, {
    task: { container: { image: 'nginx' }, resources: { reservations: { nanoCpus: 3e9, memoryBytes: 2 ** 30 } } },
  });
  let service: ShoalEvent;
  let node: ShoalEvent;
  beforeEach(() => {
    b = new EventBuilder();
    service = b.event('ServiceCreated', { id: 's1', spec });
    node = b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') });
  });
  const created = (...ids: string[]) => b.event('TasksCreated', { tasks: ids.map((id, i) => newTask(id, 's1', spec, { slot: i + 1 })) });
  const allocated = (...ids: string[]) => b.event('TasksAllocated', { tasks: ids.map((id) => ({ id, attachments: [] })) });
  const assigned = (id: string, nodeId = 'n1') => b.event('TasksAssigned', { tasks: [{ id, nodeId, why: 'spread: fewest tasks' }] });
  const reported = (id: string, state: TaskState, nodeId = 'n1') =>
    b.event('TaskStatusesReported', { nodeId, statuses: [{ id, state, at: b.now(), message: 'agent' }] });

  describe('TasksCreated', () => {
    it('creates NEW tasks with the desired state the orchestrator chose', () => {
      given(service)
        .when(created('t1', 't2'))
        .thenApplied((state) => {
          expect(state.tasks.get('t1')).toMatchObject({ serviceId: 's1', slot: 1, desiredState: RUNNING, status: { state: NEW } });
          expect(state.tasks.get('t2')?.slot).toBe(2);
        });
    });

    it('gives a task written without its spec the service\'s spec of that version: the same state, hash and all, as with it written out', () => {
      const record = created('t1', 't2');
      const withSpec = given(service).when(record).thenApplied();
      const withoutSpec = given(service)
        .when({ ...record, data: { tasks: ['t1', 't2'].map((id, i) => ({ id, serviceId: 's1', slot: i + 1, specVersion: 1, desiredState: RUNNING })) } })
        .thenApplied((state) => expect(state.tasks.get('t1')?.spec).toBe(state.services.get('s1')?.spec.task));
      expect(stateHash(withoutSpec)).toBe(stateHash(withSpec));
      // At a version the service is no longer at, it is refused as a task with a spec is.
      given(service, b.event('ServiceUpdated', { id: 's1', spec }))
        .when(b.event('TasksCreated', { tasks: [{ id: 't1', serviceId: 's1', slot: 1, specVersion: 1, desiredState: RUNNING }] }))
        .thenRejected(/task t1: stale spec version 1 \(service is at 2\)/);
    });

    it('refuses tasks of a missing service, of a stale spec version, twice, or on a missing node', () => {
      given(service, created('t1'), b.event('ServiceUpdated', { id: 's1', spec }))
        .when(
          b.event('TasksCreated', {
            tasks: [
              newTask('t1', 's1', spec, { specVersion: 2 }),
              newTask('t2', 's9', spec),
              newTask('t3', 's1', spec, { specVersion: 1 }),
              newTask('t4', 's1', spec, { specVersion: 2, nodeId: 'n9' }),
              newTask('t5', 's1', spec, { specVersion: 2 }),
            ],
          }),
        )
        .then((state, verdict) => {
          expect(verdict.status).toBe('partial');
          expect(verdict.reasons).toEqual([
            'task t1 already exists',
            'task t2: service s9 not found',
            'task t3: stale spec version 1 (service is at 2)',
            'task t4: node n9 not found',
          ]);
          expect(state.tasks.get('t5')?.specVersion).toBe(2);
        });
    });

    it('refuses a new task whose desired state is past RUNNING', () => {
      given(service)
        .when(b.event('TasksCreated', { tasks: [newTask('t1', 's1', spec, { desiredState: SHUTDOWN })] }))
        .thenRejected(/desired state is READY or RUNNING, not SHUTDOWN/);
    });

    it('accepts a task that waits with desired READY (restart delay)', () => {
      given(service)
        .when(b.event('TasksCreated', { tasks: [newTask('t1', 's1', spec, { desiredState: READY })] }))
        .thenApplied((state) => expect(state.tasks.get('t1')?.desiredState).toBe(READY));
    });
  });

  describe('TasksAllocated / TasksAllocationFailed', () => {
    const ingress = () => b.event('NetworkCreated', { id: 'ingress', spec: { name: 'ingress', driver: 'overlay', ingress: true } });

    it('moves NEW to PENDING with its attachments', () => {
      given(service, ingress(), created('t1'))
        .when(b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [{ network: 'ingress', addresses: ['10.0.0.5/24'] }] }] }))
        .thenApplied((state) => {
          expect(state.tasks.get('t1')?.status.state).toBe(PENDING);
          expect(state.tasks.get('t1')?.attachments).toEqual([{ network: 'ingress', addresses: ['10.0.0.5/24'] }]);
        });
    });

    it('refuses an address on a network that is not there (removed after the allocator proposed it)', () => {
      given(service, ingress(), created('t1', 't2'), b.event('NetworkRemoved', { id: 'ingress' }))
        .when(b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [{ network: 'ingress', addresses: ['10.0.0.5/24'] }] }, { id: 't2', attachments: [] }] }))
        .then((state, verdict) => {
          expect(verdict).toMatchObject({ status: 'partial', reasons: ['task t1: network ingress not found'] });
          expect(state.tasks.get('t1')?.status.state).toBe(NEW);
          expect(state.tasks.get('t2')?.status.state).toBe(PENDING);
        });
    });

    it('refuses a task that is not NEW, and a task being shut down', () => {
      given(service, created('t1', 't2'), allocated('t1'), b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't2', desiredState: SHUTDOWN }] }))
        .when(allocated('t1', 't2'))
        .then((_state, verdict) => {
          expect(verdict.status).toBe('rejected');
          expect(verdict.reasons).toEqual(['task t1 is PENDING, not NEW', 'task t2 is being shut down']);
        });
    });

    it('a failed allocation keeps the task NEW with the reason', () => {
      given(service, created('t1'))
        .when(b.event('TasksAllocationFailed', { tasks: [{ id: 't1', reason: 'network backend: no addresses left' }] }))
        .thenApplied((state) => expect(state.tasks.get('t1')?.status).toMatchObject({ state: NEW, err: 'network backend: no addresses left' }));
    });
  });

  describe('TasksAssigned / TasksUnschedulable', () => {
    it('moves PENDING to ASSIGNED on a ready, active node and records why', () => {
      given(service, node, created('t1'), allocated('t1'))
        .when(assigned('t1'))
        .thenApplied((state) => {
          expect(state.tasks.get('t1')).toMatchObject({ nodeId: 'n1', assignmentReason: 'spread: fewest tasks', status: { state: ASSIGNED } });
          expect(state.reserved.get('n1')).toEqual({ nanoCpus: 3e9, memoryBytes: 2 ** 30 });
        });
    });

    it('refuses a placement that would put the node over capacity', () => {
      given(service, node, created('t1', 't2'), allocated('t1', 't2'), assigned('t1'))
        .when(assigned('t2'))
        .thenRejected(/node n1 is over capacity: insufficient CPU/);
    });

    it('frees the reservation once the task ends', () => {
      given(service, node, created('t1', 't2'), allocated('t1', 't2'), assigned('t1'), reported('t1', FAILED))
        .when(assigned('t2'))
        .thenApplied((state) => expect(state.reserved.get('n1')?.nanoCpus).toBe(3e9));
    });

    it('refuses nodes that are down, paused or drained, or missing', () => {
      const paused = b.event('NodeSpecUpdated', { id: 'n1', spec: { labels: {}, role: 'worker', availability: 'pause' } });
      given(service, node, created('t1'), allocated('t1'), paused).when(assigned('t1')).thenRejected(/not available for new tasks \(pause\)/);
      const down = b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] });
      given(service, node, created('t1'), allocated('t1'), down).when(assigned('t1')).thenRejected(/node n1 is down, not ready/);
      given(service, created('t1'), allocated('t1')).when(assigned('t1', 'n7')).thenRejected(/node n7 not found/);
    });

    it('refuses a task that is not PENDING', () => {
      given(service, node, created('t1')).when(assigned('t1')).thenRejected(/task t1 is NEW, not PENDING/);
    });

    it('keeps a global task on its own node', () => {
      const other = b.event('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('n2') });
      given(service, node, other, b.event('TasksCreated', { tasks: [newTask('g1', 's1', spec, { nodeId: 'n2', slot: undefined })] }), allocated('g1'))
        .when(assigned('g1', 'n1'))
        .thenRejected(/belongs on node n2, not n1/);
    });

    it('an unschedulable task stays PENDING with the explanation', () => {
      given(service, created('t1'), allocated('t1'))
        .when(b.event('TasksUnschedulable', { tasks: [{ id: 't1', explain: 'no suitable node (insufficient resources on 2 nodes)' }] }))
        .thenApplied((state) =>
          expect(state.tasks.get('t1')?.status).toMatchObject({ state: PENDING, err: 'no suitable node (insufficient resources on 2 nodes)' }),
        );
    });
  });

  describe('TaskStatusesReported', () => {
    const running = () => [service, node, created('t1'), allocated('t1'), assigned('t1')];

    it('moves the observed state forward with the agent’s message and exit code', () => {
      given(...running(), reported('t1', RUNNING))
        .when(b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: FAILED, at: b.now(), err: 'exit 1', exitCode: 1 }] }))
        .thenApplied((state) => expect(state.tasks.get('t1')?.status).toMatchObject({ state: FAILED, err: 'exit 1', exitCode: 1 }));
    });

    it('remembers when the task first ran, and keeps it once it stops; a task that never ran has none', () => {
      const up = reported('t1', RUNNING);
      const at = up.type === 'TaskStatusesReported' ? up.data.statuses[0]!.at : '';
      given(...running(), up)
        .when(reported('t1', FAILED))
        .thenApplied((state) => expect(state.tasks.get('t1')?.startedAt).toBe(at));
      given(...running())
        .when(reported('t1', FAILED))
        .thenApplied((state) => expect(state.tasks.get('t1')?.startedAt).toBeUndefined());
    });

    describe("the task's container (its id and PID), from log level 5", () => {
      const containerId = 'c0ffee'.padEnd(64, '0');
      const clusters = new Map<number, ShoalEvent>();
      beforeEach(() => {
        // The cluster's records first, as on a log: then the service and node the tasks need.
        b = new EventBuilder();
        for (const logLevel of [4, 5]) clusters.set(logLevel, b.event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }), logLevel }));
        service = b.event('ServiceCreated', { id: 's1', spec });
        node = b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') });
      });
      const atLevel = (logLevel: number) => [clusters.get(logLevel)!, ...running()];
      const withContainer = (state: TaskState, pid: number, exitCode?: number) =>
        b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state, at: b.now(), message: 'started', containerId, pid, ...(exitCode !== undefined ? { exitCode } : {}) }] });
      const without = (record: ShoalEvent): ShoalEvent =>
        record.type === 'TaskStatusesReported'
          ? { ...record, data: { ...record.data, statuses: record.data.statuses.map(({ containerId: _id, pid: _pid, ...rest }) => rest) } }
          : record;

      it('at level 5, keeps them with each status: the PID while it runs, 0 once it exited', () => {
        given(...atLevel(5))
          .when(withContainer(RUNNING, 4242))
          .thenApplied((state) => expect(state.tasks.get('t1')?.status).toMatchObject({ state: RUNNING, containerId, pid: 4242 }));
        given(...atLevel(5), withContainer(RUNNING, 4242))
          .when(withContainer(FAILED, 0, 3))
          .thenApplied((state) => expect(state.tasks.get('t1')?.status).toMatchObject({ state: FAILED, containerId, pid: 0, exitCode: 3 }));
      });

      it('below level 5, keeps neither, as the builds before it: the same state and hash as a record without them', () => {
        const [four, five] = [atLevel(4), atLevel(5)];
        const up = withContainer(RUNNING, 4242);
        const ended = withContainer(FAILED, 0, 3);
        const kept = given(...four, up)
          .when(ended)
          .thenApplied((state) => {
            expect(state.tasks.get('t1')?.status).toMatchObject({ state: FAILED, exitCode: 3 });
            expect(state.tasks.get('t1')?.status.containerId).toBeUndefined();
            expect(state.tasks.get('t1')?.status.pid).toBeUndefined();
          });
        const plain = given(...four, without(up)).when(without(ended)).thenApplied();
        expect(stateHash(kept)).toBe(stateHash(plain));
        // At level 5 the same records give another state: the container is part of it.
        const atFive = given(...five, up).when(ended).thenApplied();
        expect(stateHash(atFive)).not.toBe(stateHash(given(...five, without(up)).when(without(ended)).thenApplied()));
      });

      it('a status without a container (a simulated executor) has none, at level 5 too', () => {
        given(...atLevel(5))
          .when(reported('t1', RUNNING))
          .thenApplied((state) => {
            expect(state.tasks.get('t1')?.status.containerId).toBeUndefined();
            expect(state.tasks.get('t1')?.status.pid).toBeUndefined();
          });
      });
    });

    it('never moves the state backwards', () => {
      given(...running(), reported('t1', RUNNING)).when(reported('t1', STARTING)).thenRejected(/state may not move backwards \(RUNNING → STARTING\)/);
    });

    it('refuses a repeat of the same state', () => {
      given(...running(), reported('t1', ACCEPTED)).when(reported('t1', ACCEPTED)).thenRejected(/ACCEPTED → ACCEPTED/);
    });

    it('refuses reports from another node than the task’s', () => {
      const other = b.event('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('n2') });
      given(...running(), other).when(reported('t1', RUNNING, 'n2')).thenRejected(/task t1 is not assigned to node n2/);
    });

    it('refuses manager-side states from an agent', () => {
      given(...running()).when(reported('t1', REMOVE)).thenRejected(/REMOVE is not a state an agent reports/);
    });

    it('refuses reports from an unknown node', () => {
      given(...running()).when(reported('t1', RUNNING, 'n5')).thenRejected(/node n5 not found/);
    });

    it('lets the dispatcher orphan a task', () => {
      given(...running(), reported('t1', RUNNING))
        .when(reported('t1', ORPHANED))
        .thenApplied((state) => expect(state.tasks.get('t1')?.status.state).toBe(ORPHANED));
    });
  });

  describe('TaskDesiredStatesChanged', () => {
    it('moves the desired state forward', () => {
      given(service, b.event('TasksCreated', { tasks: [newTask('t1', 's1', spec, { desiredState: READY })] }))
        .when(b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: RUNNING }] }))
        .thenApplied((state) => expect(state.tasks.get('t1')?.desiredState).toBe(RUNNING));
    });

    it('never moves it backwards', () => {
      given(service, created('t1'), b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: SHUTDOWN }] }))
        .when(b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: RUNNING }] }))
        .thenRejected(/desired state may not move backwards \(SHUTDOWN → RUNNING\)/);
    });

    it('refuses unknown tasks item by item', () => {
      given(service, created('t1'))
        .when(b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: REMOVE }, { id: 'zz', desiredState: REMOVE }] }))
        .thenPartial(/task zz not found/, (state) => expect(state.tasks.get('t1')?.desiredState).toBe(REMOVE));
    });
  });

  describe('TasksRemoved', () => {
    it('removes ended tasks and tasks that never reached a node', () => {
      given(service, node, created('t1', 't2'), allocated('t1'), assigned('t1'), reported('t1', COMPLETE))
        .when(b.event('TasksRemoved', { tasks: [{ id: 't1', reason: 'history' }, { id: 't2', reason: 'service removed' }] }))
        .thenApplied((state) => expect(state.tasks.size).toBe(0));
    });

    it('refuses to remove a task still running on a live node', () => {
      given(service, node, created('t1'), allocated('t1'), assigned('t1'), reported('t1', RUNNING))
        .when(b.event('TasksRemoved', { tasks: [{ id: 't1', reason: 'history' }] }))
        .thenRejected(/task t1 is still RUNNING on node n1/);
    });

    it('removes a task whose node is gone', () => {
      given(service, node, created('t1'), allocated('t1'), assigned('t1'), b.event('NodeRemoved', { id: 'n1', force: true }))
        .when(b.event('TasksRemoved', { tasks: [{ id: 't1', reason: 'node removed' }] }))
        .thenApplied((state) => {
          expect(state.tasks.has('t1')).toBe(false);
          expect(state.reserved.has('n1')).toBe(false);
        });
    });

    it('refuses a missing task', () => {
      given().when(b.event('TasksRemoved', { tasks: [{ id: 't1', reason: 'x' }] })).thenRejected(/task t1 not found/);
    });
  });
});
