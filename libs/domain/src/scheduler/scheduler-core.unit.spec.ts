import { TaskState } from '@shoal/contracts';
import type { ServiceSpec } from '@shoal/contracts';
import { newTask, node, nodes, nodeSpec, pending, reported, service, specification, whenScheduled } from '@shoal/testing';
import { SchedulerCore } from './scheduler-core';

const scheduler = () => specification({ core: () => new SchedulerCore() });

const { RUNNING, FAILED, REJECTED, COMPLETE, SHUTDOWN } = TaskState;

describe('the scheduler core', () => {
  describe('global tasks: the node was chosen at creation', () => {
    it('checks the filters on that node, then assigns it there', () => {
      const c = scheduler().given(nodes('n', 3), service('agent', {}, { kind: 'global' }));
      c.given(pending('agent', 1, { nodeId: 'n2' }));
      const out = whenScheduled(c);
      expect([...out.assigned.entries()]).toEqual([[c.lastCreated[0], 'n2']]);
      expect(out.why.get(c.lastCreated[0] as string)).toMatch(/^global: its node n2 was chosen at creation/);
      expect(c.state.tasks.get(c.lastCreated[0] as string)?.status.state).toBe(TaskState.ASSIGNED);
    });

    it('leaves it PENDING with the reason when its node fails a filter, and assigns it once the node can take it', () => {
      const c = scheduler().given(node('n1', { availability: 'drain' }), node('n2'), service('agent', {}, { kind: 'global' }));
      c.given(pending('agent', 1, { nodeId: 'n1' }));
      const id = c.lastCreated[0] as string;
      expect(whenScheduled(c).unschedulable.get(id)).toBe('no suitable node (1 node not available for new tasks)');
      expect(whenScheduled(c).proposals).toEqual([]);
      c.given(nodeSpec('n1', { labels: {}, role: 'worker', availability: 'active' }));
      expect([...whenScheduled(c).assigned.entries()]).toEqual([[id, 'n1']]);
    });

    it('never moves a global task to another node, even when its own is full', () => {
      const c = scheduler().given(node('n1', { cpus: 1 }), node('n2', { cpus: 8 }));
      c.given(service('agent', { resources: { reservations: { nanoCpus: 2e9 } } }, { kind: 'global' }), pending('agent', 1, { nodeId: 'n1' }));
      const out = whenScheduled(c);
      expect(out.assigned.size).toBe(0);
      expect([...out.unschedulable.values()]).toEqual(['no suitable node (insufficient resources on 1 node)']);
    });
  });

  describe('batching: tasks of one service and spec version share one tree', () => {
    it('places tasks queued by several events in one decision and one record', () => {
      const c = scheduler().given(nodes('n', 4), service('web'));
      c.given(pending('web', 3), pending('web', 5));
      const out = whenScheduled(c);
      expect(out.proposals.map((p) => p.type)).toEqual(['TasksAssigned']);
      expect(out.assigned.size).toBe(8);
      expect([...out.perNode('web').values()]).toEqual([2, 2, 2, 2]);
    });

    it('schedules two spec versions of one service as two batches that still see each other\'s tasks', () => {
      const c = scheduler().given(nodes('n', 2), service('web'));
      c.given(pending('web', 1));
      const web = c.state.services.get('web');
      c.apply(c.b.event('ServiceUpdated', { id: 'web', spec: { ...(web?.spec as ServiceSpec), labels: { v: '2' } } }));
      c.given(pending('web', 1));
      const out = whenScheduled(c);
      expect(new Set(out.assigned.values())).toEqual(new Set(['n1', 'n2']));
    });

    it('spreads each service on its own, the total count breaking ties', () => {
      const c = scheduler().given(nodes('n', 3), service('a'), service('b'));
      c.given(pending('a', 2), pending('b', 1));
      const out = whenScheduled(c);
      expect(out.perNode('a')).toEqual(new Map([['n1', 1], ['n2', 1]]));
      expect(out.perNode('b')).toEqual(new Map([['n3', 1]]));
    });
  });

  describe('faulty nodes', () => {
    /** A task of web lands on n1 (the emptiest) and fails there, `times` times. */
    const failLoop = (times: number) => {
      const c = scheduler().given(nodes('n', 3), service('web'));
      c.given(pending('web', 1, { nodeId: 'n2' }), pending('web', 1, { nodeId: 'n3' }));
      whenScheduled(c);
      for (let i = 0; i < times; i++) {
        c.given(pending('web', 1));
        const id = c.lastCreated[0] as string;
        expect([...whenScheduled(c).assigned.entries()]).toEqual([[id, 'n1']]);
        c.given(reported('n1', id, FAILED));
      }
      return c;
    };

    it('after five failures of the service on a node within five minutes, sorts that node last', () => {
      const c = failLoop(5);
      c.given(pending('web', 1));
      const out = whenScheduled(c);
      expect([...out.assigned.values()]).toEqual(['n2']);
    });

    it('four failures are not enough', () => {
      const c = failLoop(4);
      c.given(pending('web', 1));
      expect([...whenScheduled(c).assigned.values()]).toEqual(['n1']);
    });

    it('forgets failures older than five minutes', () => {
      const c = failLoop(5);
      c.given(pending('web', 1));
      expect([...whenScheduled(c, new Date(Date.parse(c.b.now()) + 6 * 60_000)).assigned.values()]).toEqual(['n1']);
    });

    it('counts rejections as failures, and a faulty node still takes tasks when nothing else can', () => {
      const c = scheduler().given(node('n1'), service('web'));
      for (let i = 0; i < 5; i++) {
        c.given(pending('web', 1));
        whenScheduled(c);
        c.given(reported('n1', c.lastCreated[0] as string, REJECTED));
      }
      c.given(pending('web', 1));
      const out = whenScheduled(c);
      expect([...out.assigned.values()]).toEqual(['n1']);
      expect(out.why.get(c.lastCreated[0] as string)).toMatch(/node failed 5 tasks of web lately, but no better node was left$/);
    });

    it('counts failures per spec version: a new version starts afresh', () => {
      const c = failLoop(5);
      const web = c.state.services.get('web');
      c.apply(c.b.event('ServiceUpdated', { id: 'web', spec: { ...(web?.spec as ServiceSpec), labels: { v: '2' } } }));
      c.given(pending('web', 1));
      expect([...whenScheduled(c).assigned.values()]).toEqual(['n1']);
    });

    it('does not hold the failures of global tasks against their node', () => {
      const c = scheduler().given(nodes('n', 2), service('agent', {}, { kind: 'global' }), service('web'));
      for (let i = 0; i < 5; i++) {
        c.given(pending('agent', 1, { nodeId: 'n1' }));
        whenScheduled(c);
        c.given(reported('n1', c.lastCreated[0] as string, FAILED));
      }
      c.given(pending('web', 1, { nodeId: 'n2' }));
      whenScheduled(c);
      c.given(pending('agent', 1, { nodeId: 'n2' }));
      whenScheduled(c);
      const svc = c.core.view.nodes.get('n1');
      expect(svc?.recentFailures('agent', 1, Date.parse(c.b.now()))).toBe(0);
    });
  });

  describe('unschedulable tasks wait for a change', () => {
    it('says so once, and does not say it again while nothing changes', () => {
      const c = scheduler().given(node('n1', { cpus: 1 }), service('big', { resources: { reservations: { nanoCpus: 2e9 } } }), pending('big', 1));
      expect(whenScheduled(c).proposals.map((p) => p.type)).toEqual(['TasksUnschedulable']);
      expect(whenScheduled(c).proposals).toEqual([]);
      c.given(service('other'), pending('other', 1));
      expect(whenScheduled(c).proposals.map((p) => p.type)).toEqual(['TasksAssigned']);
    });

    it('is placed when a down node comes back', () => {
      const c = scheduler().given(node('n1', { state: 'down' }), service('web'), pending('web', 1));
      expect([...whenScheduled(c).unschedulable.values()]).toEqual(['no suitable node (1 node not available for new tasks)']);
      c.apply(c.b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'ready' }] }));
      expect([...whenScheduled(c).assigned.values()]).toEqual(['n1']);
    });

    it('is placed when a node joins', () => {
      const c = scheduler().given(node('n1', { cpus: 1 }), service('big', { resources: { reservations: { nanoCpus: 2e9 } } }), pending('big', 1));
      whenScheduled(c);
      c.given(node('n2', { cpus: 4 }));
      expect([...whenScheduled(c).assigned.values()]).toEqual(['n2']);
    });

    it('is placed when a task on the node ends and gives its resources back', () => {
      const c = scheduler().given(node('n1', { cpus: 2 }), service('big', { resources: { reservations: { nanoCpus: 2e9 } } }), pending('big', 2));
      const [first, second] = c.lastCreated as [string, string];
      const out = whenScheduled(c);
      expect(out.assigned.get(first)).toBe('n1');
      expect(out.unschedulable.get(second)).toBe('no suitable node (insufficient resources on 1 node)');
      c.given(reported('n1', first, RUNNING));
      expect(whenScheduled(c).proposals).toEqual([]);
      c.given(reported('n1', first, COMPLETE));
      expect([...whenScheduled(c).assigned.entries()]).toEqual([[second, 'n1']]);
    });

    it('is placed when a task being shut down no longer counts against max replicas', () => {
      const c = scheduler().given(node('n1'), service('web', { placement: { maxReplicas: 1 } }), pending('web', 2));
      const [first, second] = c.lastCreated as [string, string];
      whenScheduled(c);
      c.given(reported('n1', first, RUNNING));
      c.apply(c.b.event('TaskDesiredStatesChanged', { tasks: [{ id: first, desiredState: SHUTDOWN }] }));
      expect([...whenScheduled(c).assigned.entries()]).toEqual([[second, 'n1']]);
    });

    it('drops a PENDING task that is told to shut down', () => {
      const c = scheduler().given(node('n1', { cpus: 1 }), service('big', { resources: { reservations: { nanoCpus: 2e9 } } }), pending('big', 1));
      whenScheduled(c);
      c.apply(c.b.event('TaskDesiredStatesChanged', { tasks: [{ id: c.lastCreated[0] as string, desiredState: SHUTDOWN }] }));
      c.given(node('n2', { cpus: 4 }));
      expect(whenScheduled(c).proposals).toEqual([]);
      expect(c.core.view.tasks.has(c.lastCreated[0] as string)).toBe(false);
    });
  });

  it('leaves alone tasks not yet allocated (NEW), and places a task waiting to start (desired READY) like any other', () => {
    const c = scheduler().given(node('n1'), service('web'));
    const spec = c.state.services.get('web')?.spec as ServiceSpec;
    c.apply(c.b.event('TasksCreated', { tasks: [newTask('fresh', 'web', spec, { slot: 1 })] }));
    expect(whenScheduled(c).proposals).toEqual([]);
    c.apply(c.b.event('TasksCreated', { tasks: [newTask('ready', 'web', spec, { slot: 2, desiredState: TaskState.READY })] }));
    c.apply(c.b.event('TasksAllocated', { tasks: [{ id: 'ready', attachments: [] }] }));
    expect([...whenScheduled(c).assigned.entries()]).toEqual([['ready', 'n1']]);
  });

  it('places no task of a service that has been removed', () => {
    const c = scheduler().given(node('n1'), service('web'), pending('web', 2));
    c.apply(c.b.event('ServiceRemoved', { id: 'web' }));
    expect(whenScheduled(c).proposals).toEqual([]);
  });

  it('gives the node back when its assignment is refused, and places the task again after the change', () => {
    const c = scheduler().given(nodes('n', 2), service('web'), pending('web', 1));
    const id = c.lastCreated[0] as string;
    const proposals = c.core.decide(c.state, new Date(c.b.now()));
    const target = proposals[0]?.type === 'TasksAssigned' ? proposals[0].data.tasks[0]?.nodeId : undefined;
    expect(target).toBe('n1');
    c.apply(c.b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] }));
    const proposal = proposals[0];
    if (proposal?.type !== 'TasksAssigned') throw new Error('expected an assignment');
    const verdict = c.apply(c.b.event('TasksAssigned', proposal.data));
    expect(verdict.status).toBe('rejected');
    expect([c.core.view.tasks.get(id)?.node, c.core.view.nodes.get('n1')?.activeTasks]).toEqual([undefined, 0]);
    expect([...whenScheduled(c).assigned.entries()]).toEqual([[id, 'n2']]);
  });

  it('avoids drained, paused and down nodes for new tasks but keeps counting the tasks they hold', () => {
    const c = scheduler().given(nodes('n', 3), service('web'), pending('web', 3));
    whenScheduled(c);
    c.given(nodeSpec('n1', { labels: {}, role: 'worker', availability: 'pause' }));
    c.apply(c.b.event('NodeStatusChanged', { nodes: [{ id: 'n2', state: 'down' }] }));
    c.given(pending('web', 2));
    const out = whenScheduled(c);
    expect([...out.assigned.values()]).toEqual(['n3', 'n3']);
    expect(c.core.view.nodes.get('n1')?.tasksOf('web')).toBe(1);
  });

  it('builds the same view from the state on start-up as it kept from the events', () => {
    const c = scheduler().given(nodes('n', 3), service('web', { resources: { reservations: { nanoCpus: 1e9 } } }), pending('web', 7));
    whenScheduled(c);
    const fresh = new (c.core.constructor as new () => typeof c.core)();
    fresh.reconcileAll(c.state);
    for (const id of ['n1', 'n2', 'n3']) {
      const kept = c.core.view.nodes.get(id);
      const rebuilt = fresh.view.nodes.get(id);
      expect([rebuilt?.tasksOf('web'), rebuilt?.nanoCpus, rebuilt?.activeTasks]).toEqual([kept?.tasksOf('web'), kept?.nanoCpus, kept?.activeTasks]);
    }
    expect(fresh.decide(c.state, new Date(c.b.now()))).toEqual([]);
  });

  it('gives back what each task took: when it ends, when it stops counting, and none of it to a node registered again', () => {
    const gpus = [{ kind: 'gpu', named: 'GPU-0' }, { kind: 'gpu', named: 'GPU-1' }];
    const c = scheduler().given(
      node('n1', { cpus: 4, generic: gpus }),
      service('ml', { resources: { reservations: { nanoCpus: 1e9, memoryBytes: 2 ** 30, generic: [{ kind: 'gpu', discrete: 1 }] } } }),
      pending('ml', 2),
    );
    whenScheduled(c);
    const [a, b] = c.lastCreated as [string, string];
    c.given(reported('n1', a, RUNNING), reported('n1', b, RUNNING));
    // A new description keeps what the tasks hold, the named GPUs they took included.
    c.given(node('n1', { cpus: 8, generic: gpus }));
    const n1 = () => c.core.view.nodes.get('n1');
    expect([n1()?.nanoCpus, n1()?.memoryBytes, n1()?.generic.named.get('gpu'), n1()?.activeTasks]).toEqual([6e9, 6 * 2 ** 30, [], 2]);
    c.happen('TaskDesiredStatesChanged', { tasks: [{ id: a, desiredState: SHUTDOWN }] });
    expect([n1()?.tasksOf('ml'), n1()?.nanoCpus]).toEqual([1, 6e9]);
    c.given(reported('n1', a, COMPLETE));
    expect([n1()?.nanoCpus, n1()?.memoryBytes, n1()?.generic.named.get('gpu')]).toEqual([7e9, 7 * 2 ** 30, ['GPU-0']]);
    // Registered again after its removal, the node holds nothing of the old one's tasks, and is given nothing back when they end.
    c.happen('NodeRemoved', { id: 'n1', force: true });
    c.given(node('n1', { cpus: 8, generic: gpus }));
    expect([n1()?.nanoCpus, n1()?.activeTasks, n1()?.generic.named.get('gpu')]).toEqual([8e9, 0, ['GPU-0', 'GPU-1']]);
    c.given(reported('n1', b, COMPLETE));
    expect([n1()?.nanoCpus, n1()?.activeTasks, n1()?.generic.named.get('gpu'), c.core.view.tasks.size]).toEqual([8e9, 0, ['GPU-0', 'GPU-1'], 0]);
  });

  it('says why: the node\'s count of the service and in all, and how many nodes passed', () => {
    const c = scheduler().given(nodes('n', 2), node('down', { state: 'down' }), service('web'), pending('web', 3));
    const out = whenScheduled(c);
    expect([...out.why.values()]).toEqual([
      'node has 1 task of web (1 in all); 2 of 3 nodes passed',
      'node has 1 task of web (1 in all); 2 of 3 nodes passed',
      'node has 2 tasks of web (2 in all); 2 of 3 nodes passed',
    ]);
    expect(c.state.tasks.get(c.lastCreated[0] as string)?.assignmentReason).toBe('node has 1 task of web (1 in all); 2 of 3 nodes passed');
  });
});
