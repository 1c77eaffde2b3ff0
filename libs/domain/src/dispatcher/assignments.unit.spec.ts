/** Assignments: a node's tasks, as a complete set and then as changes. */
import { TaskState } from '@shoal/contracts';
import { assigned, configCreated, connect, dispatcherSpecification, newTask, removeTask, report, serviceSpec } from '@shoal/testing';
import { AssignmentTracker } from './assignments';
import type { AssignmentChanges } from './assignments';

const { ASSIGNED, RUNNING, SHUTDOWN, REMOVE, FAILED } = TaskState;

describe('dispatcher: assignments', () => {
  it('tells the node’s session when its tasks change, not when only their observed state does', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    const n1 = connect(h, 'n1');
    const n2 = connect(h, 'n2');
    h.apply(assigned('t1', 'n1'));
    expect(n1.heard).toEqual(['opened, period 5000', 'assignments']);
    expect(n2.heard).toEqual(['opened, period 5000']);
    report(h, 'n1', 't1', RUNNING);
    h.tick();
    expect(n1.heard).toEqual(['opened, period 5000', 'assignments']);
    h.happen('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: SHUTDOWN }] });
    expect(n1.heard).toEqual(['opened, period 5000', 'assignments', 'assignments']);
    expect([...h.core.tasksOf('n1')]).toEqual(['t1']);
  });

  it('a stream gets the complete set first, then only what changed', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    connect(h, 'n1');
    h.apply(assigned('t1', 'n1', 1));
    h.apply(assigned('t2', 'n1', 2));
    h.apply(assigned('other', 'n2-missing', 3));
    const tracker = new AssignmentTracker();
    const set = tracker.complete(h.state, h.core.tasksOf('n1'));
    expect(set.configs).toEqual([]);
    expect(set.tasks.map((a) => [a.taskId, a.serviceName, a.slot, a.desiredState, a.observedState])).toEqual([
      ['t1', 'web', 1, RUNNING, ASSIGNED],
      ['t2', 'web', 2, RUNNING, ASSIGNED],
    ]);
    expect(tracker.changes(h.state, h.core.tasksOf('n1'))).toEqual({ tasks: [], configs: [] });

    h.apply(assigned('t3', 'n1', 3));
    h.happen('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: REMOVE }] });
    report(h, 'n1', 't2', FAILED);
    h.tick();
    h.happen('TasksRemoved', { tasks: [{ id: 't2', reason: 'history' }] });
    const changes = tracker.changes(h.state, h.core.tasksOf('n1'));
    expect(changes.tasks).toEqual([
      { action: 'update', assignment: expect.objectContaining({ taskId: 't1', desiredState: REMOVE }) },
      { action: 'update', assignment: expect.objectContaining({ taskId: 't3', desiredState: RUNNING }) },
      { action: 'remove', taskId: 't2' },
    ]);
    expect(changes.configs).toEqual([]);
    expect(tracker.changes(h.state, h.core.tasksOf('n1'))).toEqual({ tasks: [], configs: [] });
  });

  it('does not hand out tasks before they are assigned', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    connect(h, 'n1');
    const spec = serviceSpec('web', { kind: 'global' });
    h.happen('ServiceCreated', { id: 'g', spec });
    h.happen('TasksCreated', { tasks: [newTask('g1', 'g', spec, { slot: undefined, nodeId: 'n1' })] });
    expect(new AssignmentTracker().complete(h.state, h.core.tasksOf('n1'))).toEqual({ tasks: [], configs: [] });
  });
});

describe('dispatcher: the configs a node is sent', () => {
  const base64 = (text: string): string => Buffer.from(text).toString('base64');
  /** The config changes, in short: "+id name data" or "-id". */
  const configsOf = (changes: AssignmentChanges): string[] =>
    changes.configs.map((c) => (c.action === 'update' ? `+${c.config.id} ${c.config.name} ${c.config.data}` : `-${c.configId}`));
  const tasksOf = (changes: AssignmentChanges): string[] => changes.tasks.map((c) => (c.action === 'update' ? `update ${c.assignment.taskId}` : `remove ${c.taskId}`));

  /** Two connected nodes, each with a stream that has had its COMPLETE set, and two configs. */
  const twoNodes = () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    const links = { n1: connect(h, 'n1'), n2: connect(h, 'n2') };
    h.apply(configCreated('cfg1', 'a=1\n'));
    h.apply(configCreated('cfg2', 'b=2\n'));
    const trackers = { n1: new AssignmentTracker(), n2: new AssignmentTracker() };
    for (const node of ['n1', 'n2'] as const) trackers[node].complete(h.state, h.core.tasksOf(node));
    /** What the node's stream sends next: the changes of the tasks its link was told of since. */
    const seen = { n1: 0, n2: 0 };
    const next = (node: 'n1' | 'n2'): AssignmentChanges => {
      const touched = links[node].touched.slice(seen[node]);
      seen[node] = links[node].touched.length;
      return trackers[node].changesOf(h.state, h.core.tasksOf(node), touched);
    };
    return { h, trackers, next };
  };

  it('sends a config with the first task that uses it, once, and removes it after the last task that uses it', () => {
    const { h, trackers, next } = twoNodes();
    h.apply(assigned('t1', 'n1', 1, ['cfg1']));
    const first = next('n1');
    expect(tasksOf(first)).toEqual(['update t1']);
    expect(configsOf(first)).toEqual([`+cfg1 cfg1-name ${base64('a=1\n')}`]);

    h.apply(assigned('t2', 'n1', 2, ['cfg1', 'cfg2']));
    expect(configsOf(next('n1'))).toEqual([`+cfg2 cfg2-name ${base64('b=2\n')}`]);
    // A change of desired state sends the task again, not its configs.
    h.happen('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: SHUTDOWN }] });
    expect(next('n1')).toEqual({ tasks: [expect.objectContaining({ action: 'update' })], configs: [] });

    removeTask(h, 'n1', 't1');
    expect(next('n1')).toEqual({ tasks: [{ action: 'remove', taskId: 't1' }], configs: [] });
    expect([...trackers.n1.configsSent()].sort()).toEqual(['cfg1', 'cfg2']);
    removeTask(h, 'n1', 't2');
    const last = next('n1');
    expect(tasksOf(last)).toEqual(['remove t2']);
    expect(configsOf(last).sort()).toEqual(['-cfg1', '-cfg2']);
    expect(trackers.n1.configsSent().size).toBe(0);
  });

  it('sends a secret sealed, as the view holds it, with the first task that uses it, and removes it after the last', () => {
    const { h, next } = twoNodes();
    const sealed = Buffer.alloc(40, 9).toString('base64');
    h.happen('SecretCreated', { id: 'x1', spec: { name: 'db-password' }, data: { sealed } });
    const secrets = [{ secretId: 'x1', secretName: 'db-password', file: { name: 'db-password', uid: '0', gid: '0', mode: 0o400 } }];
    const spec = serviceSpec('db', { kind: 'replicated', replicas: 1 }, { task: { container: { image: 'postgres:16', secrets } } });
    h.happen('TasksCreated', { tasks: [newTask('t1', 's1', spec, { slot: 1 })] });
    h.happen('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] });
    h.happen('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'test' }] });
    expect(next('n1').configs).toEqual([{ action: 'update', config: { id: 'x1', name: 'db-password', data: sealed, secret: true } }]);
    expect(next('n2').configs).toEqual([]);
    removeTask(h, 'n1', 't1');
    expect(next('n1').configs).toEqual([{ action: 'remove', configId: 'x1' }]);
  });

  it('a task replaced by one that uses the same config, in one batch, leaves the config on the node', () => {
    const { h, next } = twoNodes();
    h.apply(assigned('old', 'n1', 1, ['cfg1']));
    next('n1');
    report(h, 'n1', 'old', FAILED);
    h.tick();
    h.happen('TasksRemoved', { tasks: [{ id: 'old', reason: 'history' }] });
    h.apply(assigned('new', 'n1', 1, ['cfg1']));
    const changes = next('n1');
    expect(tasksOf(changes).sort()).toEqual(['remove old', 'update new']);
    expect(changes.configs).toEqual([]);
  });

  it('does not send a config to the nodes whose tasks do not use it', () => {
    const { h, trackers, next } = twoNodes();
    h.apply(assigned('t1', 'n1', 1, ['cfg1']));
    h.apply(assigned('t2', 'n2', 2, ['cfg2']));
    h.apply(assigned('plain', 'n2', 3));
    expect(configsOf(next('n1'))).toEqual([`+cfg1 cfg1-name ${base64('a=1\n')}`]);
    expect(configsOf(next('n2'))).toEqual([`+cfg2 cfg2-name ${base64('b=2\n')}`]);
    expect([...trackers.n1.configsSent()]).toEqual(['cfg1']);
    expect([...trackers.n2.configsSent()]).toEqual(['cfg2']);
  });

  it('does not send a config the view does not have; one removed after its task was sent stays until the task goes, and a new set leaves it out', () => {
    const { h, trackers, next } = twoNodes();
    // Removed before the task is sent (a rollback to a spec that used it): the task goes, the config cannot.
    h.apply(configCreated('gone', 'g\n'));
    expect(h.happen('ConfigRemoved', { id: 'gone' })).toMatchObject({ status: 'applied' });
    h.apply(assigned('t1', 'n1', 1, ['gone', 'cfg1']));
    const changes = next('n1');
    expect(tasksOf(changes)).toEqual(['update t1']);
    expect(configsOf(changes)).toEqual([`+cfg1 cfg1-name ${base64('a=1\n')}`]);

    // Removed while a task that uses it runs (no service's current spec uses it): the node keeps what it has.
    h.apply(assigned('t2', 'n1', 2, ['cfg2']));
    next('n1');
    expect(h.happen('ConfigRemoved', { id: 'cfg2' })).toMatchObject({ status: 'applied' });
    expect(next('n1')).toEqual({ tasks: [], configs: [] });
    expect([...trackers.n1.configsSent()].sort()).toEqual(['cfg1', 'cfg2']);
    // A new stream's set has only what the view has.
    expect(new AssignmentTracker().complete(h.state, h.core.tasksOf('n1')).configs.map((c) => c.id)).toEqual(['cfg1']);
    removeTask(h, 'n1', 't2');
    expect(configsOf(next('n1'))).toEqual(['-cfg2']);
  });

  it('a COMPLETE set lists every config the node’s tasks use, each once, and starts the count again', () => {
    const { h } = twoNodes();
    h.apply(assigned('t1', 'n1', 1, ['cfg1']));
    h.apply(assigned('t2', 'n1', 2, ['cfg1', 'cfg2']));
    h.apply(assigned('t3', 'n1', 3));
    h.apply(assigned('elsewhere', 'n2', 4, ['cfg2']));
    const tracker = new AssignmentTracker();
    const set = tracker.complete(h.state, h.core.tasksOf('n1'));
    expect(set.tasks.map((a) => a.taskId)).toEqual(['t1', 't2', 't3']);
    expect(set.configs).toEqual([
      { id: 'cfg1', name: 'cfg1-name', data: base64('a=1\n') },
      { id: 'cfg2', name: 'cfg2-name', data: base64('b=2\n') },
    ]);
    // A second set forgets the first: its configs are sent again, and still go with their last task.
    expect(tracker.complete(h.state, h.core.tasksOf('n1')).configs).toHaveLength(2);
    removeTask(h, 'n1', 't1');
    removeTask(h, 'n1', 't2');
    expect(configsOf(tracker.changes(h.state, h.core.tasksOf('n1'))).sort()).toEqual(['-cfg1', '-cfg2']);
  });
});


describe('dispatcher: a task’s networks in its assignment', () => {
  it('carries each network the allocator attached the task to, with its name, subnet and gateway and the task’s addresses, the ingress network marked', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    connect(h, 'n1');
    h.apply((given) => [
      given.event('NetworkCreated', { id: 'net1', spec: { name: 'backend', driver: 'overlay' } }),
      given.event('NetworkAllocated', { id: 'net1', subnet: '10.0.1.0/24', gateway: '10.0.1.1' }),
      given.event('NetworkCreated', { id: 'ing', spec: { name: 'ingress', driver: 'overlay', ingress: true } }),
      given.event('NetworkAllocated', { id: 'ing', subnet: '10.0.0.0/24', gateway: '10.0.0.1' }),
      given.event('TasksCreated', { tasks: [newTask('t1', 's1', serviceSpec('web', { kind: 'replicated', replicas: 1 }), { slot: 1 })] }),
      given.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [{ network: 'net1', addresses: ['10.0.1.5/24'] }, { network: 'ing', addresses: ['10.0.0.3/24'] }] }] }),
      given.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'test' }] }),
    ]);
    const [assignment] = new AssignmentTracker().complete(h.state, h.core.tasksOf('n1')).tasks;
    expect(assignment?.networks).toEqual([
      { id: 'net1', name: 'backend', subnet: '10.0.1.0/24', gateway: '10.0.1.1', addresses: ['10.0.1.5/24'] },
      { id: 'ing', name: 'ingress', subnet: '10.0.0.0/24', gateway: '10.0.0.1', addresses: ['10.0.0.3/24'], ingress: true },
    ]);
  });

  it('carries none for a task on no network', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    connect(h, 'n1');
    h.apply(assigned('t1', 'n1'));
    const [assignment] = new AssignmentTracker().complete(h.state, h.core.tasksOf('n1')).tasks;
    expect(assignment).not.toHaveProperty('networks');
  });
});
