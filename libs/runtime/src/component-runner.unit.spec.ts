import { DEFAULT_CLUSTER_SPEC, TaskState, encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { ReaperCore } from '@shoal/domain';
import type { ComponentCore } from '@shoal/domain';
import type { EmbeddedEventLog } from '@shoal/eventlog';
import { EventBuilder, eventually, newTask, nodeDescription, openEmbeddedTestLog, serviceSpec, keptJoinTokens } from '@shoal/testing';
import { ComponentRunner } from './component-runner';
import type { RunnerActivity } from './component-runner';

/** A history where slot 1 of service s1 has `failed` failed tasks and one running. */
const history = (b: EventBuilder, failed: number, limit = 2): ShoalEvent[] => {
  const spec = serviceSpec('web');
  const events: ShoalEvent[] = [
    b.event('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: limit } }, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }) }),
    b.event('ServiceCreated', { id: 's1', spec }),
    b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
  ];
  for (let i = 0; i <= failed; i++) {
    const id = `t${i}`;
    events.push(
      b.event('TasksCreated', { tasks: [newTask(id, 's1', spec)] }),
      b.event('TasksAllocated', { tasks: [{ id, attachments: [] }] }),
      b.event('TasksAssigned', { tasks: [{ id, nodeId: 'n1', why: 'test' }] }),
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id, state: i < failed ? TaskState.FAILED : TaskState.RUNNING, at: b.now() }] }),
    );
    if (i < failed) events.push(b.event('TaskDesiredStatesChanged', { tasks: [{ id, desiredState: TaskState.SHUTDOWN }] }));
  }
  return events;
};

/** How long the runner gets to do each thing, and how often to look. */
const WITHIN = { timeoutMs: 10_000, everyMs: 10 };

describe('ComponentRunner (with the reaper, on the embedded log)', () => {
  let log: EmbeddedEventLog;
  let closeLog: () => Promise<void>;
  beforeEach(async () => ({ log, close: closeLog } = await openEmbeddedTestLog('shoal-runner-')));
  afterEach(() => closeLog());

  const append = (events: readonly ShoalEvent[]) => log.append(events.map((e) => ({ key: 'c1', value: encode(e) })));

  it('reconciles after replay: takes a term, then removes history beyond the limit in one record', async () => {
    const b = new EventBuilder();
    await append(history(b, 4));
    const activity: RunnerActivity[] = [];
    const runner = new ComponentRunner(log, new ReaperCore(), { cluster: 'c1', instance: 'reaper-a', onActivity: (a) => activity.push(a) });
    await runner.start();
    await eventually('t2 is removed', () => !runner.view.state.tasks.has('t2'), WITHIN);
    expect([...runner.view.state.tasks.keys()].sort()).toEqual(['t3', 't4']);
    expect(activity[0]).toEqual({ kind: 'owner', term: 1 });
    expect(activity).toContainEqual(expect.objectContaining({ kind: 'appended', count: 1, rejected: 0, refused: [] }));
    const records = await log.read(0);
    const removed = records.map((r) => JSON.parse(r.value)).filter((e) => e.type === 'TasksRemoved');
    expect(removed).toHaveLength(1);
    expect(removed[0].by).toMatchObject({ component: 'reaper', instance: 'reaper-a', term: 1 });
    await runner.stop();
  });

  it('keys its records by the cluster the log comes to name, when it started on a log with none yet', async () => {
    const runner = new ComponentRunner(log, new ReaperCore(), { instance: 'reaper-a' });
    await runner.start();
    await eventually('the reaper is active', () => runner.state === 'active', WITHIN);
    // A partition served before its cluster exists: the term is taken under no cluster's name.
    expect(JSON.parse((await log.read(0))[0]!.value)).toMatchObject({ type: 'OwnershipTaken', cluster: 'default' });
    const b = new EventBuilder('c9');
    await log.append(history(b, 4).map((e) => ({ key: 'c9', value: encode(e) })));
    await eventually('t2 is removed', () => !runner.view.state.tasks.has('t2'), WITHIN);
    const removed = (await log.read(0)).find((record) => JSON.parse(record.value).type === 'TasksRemoved')!;
    expect({ key: removed.key, cluster: JSON.parse(removed.value).cluster }).toEqual({ key: 'c9', cluster: 'c9' });
    await runner.stop();
  });

  it('acts on what arrives while it runs, batching a burst', async () => {
    const runner = new ComponentRunner(log, new ReaperCore(), { cluster: 'c1', instance: 'reaper-a' });
    await runner.start();
    await eventually('the runner is active', () => runner.state === 'active', WITHIN);
    const b = new EventBuilder();
    await append(history(b, 5));
    await eventually('two tasks are left', () => runner.view.state.tasks.size === 2, WITHIN);
    const removals = (await log.read(0)).map((r) => JSON.parse(r.value)).filter((e) => e.type === 'TasksRemoved');
    expect(removals.flatMap((e) => e.data.tasks.map((t: { id: string }) => t.id)).sort()).toEqual(['t0', 't1', 't2', 't3']);
    expect(removals.length).toBeLessThanOrEqual(2);
    await runner.stop();
  });

  it('a standby takes over when the active one stops, under a newer term', async () => {
    const a = new ComponentRunner(log, new ReaperCore(), { cluster: 'c1', instance: 'reaper-a' });
    const b = new ComponentRunner(log, new ReaperCore(), { cluster: 'c1', instance: 'reaper-b' });
    await a.start();
    await eventually('a is active', () => a.state === 'active', WITHIN);
    await b.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(b.state).toBe('standby');
    await a.stop();
    await eventually('b is active', () => b.state === 'active', WITHIN);
    expect(b.term).toBe(2);
    await append(history(new EventBuilder(), 3));
    await eventually('two tasks are left', () => b.view.state.tasks.size === 2, WITHIN);
    await b.stop();
  });

  it('steps down when the log refuses its term, and takes a newer one, though its lease was never lost', async () => {
    const b = new EventBuilder();
    const activity: RunnerActivity[] = [];
    const runner = new ComponentRunner(log, new ReaperCore(), { cluster: 'c1', instance: 'reaper-a', onActivity: (a) => activity.push(a) });
    await append([b.event('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 2 } }, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }) })]);
    await runner.start();
    await eventually('the runner is active under term 1', () => runner.state === 'active' && runner.term === 1, WITHIN);
    // The log says term 2 is someone else's (a takeover this instance's lease never heard of).
    await append([b.event('OwnershipTaken', { component: 'reaper', term: 2 }, { by: 'reaper', instance: 'reaper-x', term: 2 })]);
    // Work for the reaper: its removal under term 1 is refused, and it must not stop there.
    await append(history(b, 4).slice(1));
    await eventually('t2 is removed under a term of its own', () => !runner.view.state.tasks.has('t2'), WITHIN);
    expect(runner.state).toBe('active');
    expect(runner.term).toBe(3);
    expect(activity).toContainEqual({ kind: 'lost', reason: "the log refused this instance's term: stale writer: reaper term 1 was superseded by term 2" });
    expect(activity).toContainEqual({ kind: 'owner', term: 3 });
    await runner.stop();
  });

  it('while active, says who is in line for its lease: itself, then its standbys as they come and go', async () => {
    const told: string[] = [];
    const a = new ComponentRunner(log, new ReaperCore(), {
      cluster: 'c1',
      instance: 'reaper-a',
      onActivity: (activity) => activity.kind === 'members' && told.push(activity.members.join(',')),
    });
    const b = new ComponentRunner(log, new ReaperCore(), { cluster: 'c1', instance: 'reaper-b' });
    await a.start();
    await eventually('a is active', () => a.state === 'active', WITHIN);
    expect(told).toEqual(['reaper-a']);
    await b.start();
    await eventually('b in line', () => told.length === 2, WITHIN);
    expect(told).toEqual(['reaper-a', 'reaper-a,reaper-b']);
    expect(a.members).toEqual(['reaper-a', 'reaper-b']);
    expect(b.members).toEqual([]);
    await a.stop();
    await eventually('b is active', () => b.state === 'active', WITHIN);
    expect(b.members).toEqual(['reaper-b']);
    // a, stopped, hears no more.
    expect(told).toEqual(['reaper-a', 'reaper-a,reaper-b']);
    await b.stop();
  });

  it("wakes at the core's wake-up time with no change on the log, and decides then", async () => {
    const due = Date.now() + 300;
    const decided: number[] = [];
    const core: ComponentCore = {
      component: 'reaper',
      observe: () => undefined,
      reconcileAll: () => undefined,
      decide: (_state, now) => {
        decided.push(now.getTime());
        return now.getTime() >= due && decided.filter((t) => t >= due).length === 1 ? [{ type: 'TasksRemoved', data: { tasks: [] } }] : [];
      },
      wakeAt: () => (decided.some((t) => t >= due) ? undefined : due),
    };
    const runner = new ComponentRunner(log, core, { cluster: 'c1', instance: 'reaper-a' });
    await runner.start();
    await eventually('a decision at the due time', () => decided.some((t) => t >= due), WITHIN);
    const types = async () => (await log.read(0)).map((r) => JSON.parse(r.value).type);
    await eventually('the view is at position 2', () => runner.view.position === 2, WITHIN);
    expect(await types()).toEqual(['OwnershipTaken', 'TasksRemoved']);
    expect(decided.filter((t) => t < due).length).toBeGreaterThanOrEqual(1);
    await runner.stop();
  });
  it('learns the state in steps on taking over: the event loop turns between them, and it decides only after the last', async () => {
    const heard: string[] = [];
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until) continue;
    };
    const core: ComponentCore = {
      component: 'reaper',
      observe: (event) => heard.push(`observe ${event.type}`),
      reconcileAll: () => heard.push('reconcileAll'),
      reconcileInSteps: function* () {
        for (let step = 0; step < 40; step++) {
          busy(4);
          heard.push('step');
          yield;
        }
      },
      decide: () => (heard.push('decide'), []),
    };
    let turns = 0;
    const timer = setInterval(() => {
      heard.push(`turn ${++turns}`);
      if (heard.includes('step') && !heard.includes('appended')) {
        heard.push('appended');
        void append([new EventBuilder().event('NodeRegistered', { id: 'n9', role: 'worker', description: nodeDescription('n9') })]);
      }
    }, 1);
    const runner = new ComponentRunner(log, core, { cluster: 'c1', instance: 'reaper-a' });
    await runner.start();
    await eventually('a decision', () => heard.includes('decide'), WITHIN);
    clearInterval(timer);
    await runner.stop();
    const steps = heard.flatMap((what, at) => (what === 'step' ? [at] : []));
    expect(steps).toHaveLength(40);
    expect(heard).not.toContain('reconcileAll');
    expect(heard.indexOf('decide')).toBeGreaterThan(steps[39] as number);
    // Turns of the event loop between the first step and the last: 160 ms of steps in slices of 10 ms.
    const turnsWhileLearning = heard.slice(steps[0], steps[39]).filter((what) => what.startsWith('turn')).length;
    expect(turnsWhileLearning).toBeGreaterThanOrEqual(5);
    // A record appended after the first step reached it while it learnt.
    const observed = heard.indexOf('observe NodeRegistered');
    expect([observed > (steps[0] as number), observed < (steps[39] as number)]).toEqual([true, true]);
  });

  it('survives an append that fails: says why, catches up, and decides again from the view', async () => {
    const b = new EventBuilder();
    await append(history(b, 4));
    // The log refuses the second append (the first is the runner's OwnershipTaken), once.
    let appends = 0;
    const flaky = Object.assign(Object.create(log) as EmbeddedEventLog, {
      append: (records: Parameters<EmbeddedEventLog['append']>[0]) => {
        appends++;
        return appends === 2 ? Promise.reject(new Error('the broker is away')) : log.append(records);
      },
    });
    const activity: RunnerActivity[] = [];
    const runner = new ComponentRunner(flaky, new ReaperCore(), { cluster: 'c1', instance: 'reaper-a', onActivity: (a) => activity.push(a) });
    await runner.start();
    await eventually('t2 is removed after the failed append', () => !runner.view.state.tasks.has('t2'), WITHIN);
    expect(runner.state).toBe('active');
    expect(activity).toContainEqual({ kind: 'error', message: 'append failed (1 in a row): the broker is away' });
    expect(activity).toContainEqual(expect.objectContaining({ kind: 'appended', count: 1, rejected: 0, refused: [] }));
    expect([...runner.view.state.tasks.keys()].sort()).toEqual(['t3', 't4']);
    await runner.stop();
  });

  it('is a standby the moment its lease is lost, though an append is still waiting on the log', async () => {
    await append(history(new EventBuilder(), 4));
    // The second append (the first is the runner's OwnershipTaken) waits until the test lets it fail.
    let appends = 0;
    let failAppend!: (error: Error) => void;
    let loseLease!: (reason: string) => void;
    const leaseGone = new Promise<string>((resolve) => (loseLease = resolve));
    let dropped = false;
    const stuck = Object.assign(Object.create(log) as EmbeddedEventLog, {
      append: (records: Parameters<EmbeddedEventLog['append']>[0]) => {
        appends++;
        return appends === 2 ? new Promise<never>((_, reject) => (failAppend = reject)) : log.append(records);
      },
      acquire: async (...args: Parameters<EmbeddedEventLog['acquire']>) => {
        const lease = await log.acquire(...args);
        return Object.assign(Object.create(lease) as typeof lease, {
          lost: Promise.race([lease.lost, leaseGone]),
          isHeld: () => !dropped && lease.isHeld(),
        });
      },
    });
    const activity: RunnerActivity[] = [];
    const runner = new ComponentRunner(stuck, new ReaperCore(), { cluster: 'c1', instance: 'reaper-a', onActivity: (a) => activity.push(a) });
    await runner.start();
    await eventually('the removal is being appended', () => appends === 2, WITHIN);
    expect(runner.state).toBe('active');
    dropped = true;
    loseLease('the group member stopped');
    await eventually('the runner says it lost the lease', () => activity.some((a) => a.kind === 'lost'), WITHIN);
    expect(runner.state).toBe('standby');
    expect(runner.members).toEqual([]);
    failAppend(new Error('the broker is away'));
    await runner.stop();
  });
});
