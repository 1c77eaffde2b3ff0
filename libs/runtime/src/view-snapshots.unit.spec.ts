import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CLUSTER_SPEC, TaskState, encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { Projection, ReaperCore } from '@shoal/domain';
import { FileSnapshotStore } from '@shoal/eventlog';
import type { EmbeddedEventLog, EventLog } from '@shoal/eventlog';
import { EventBuilder, clusterInit, eventually, newTask, nodeDescription, openEmbeddedTestLog, serviceSpec, keptJoinTokens } from '@shoal/testing';
import { ComponentRunner } from './component-runner';
import type { RunnerActivity } from './component-runner';
import { LiveView } from './live-view';
import { SnapshotSaver, snapshotFor } from './view-snapshots';

const WITHIN = { timeoutMs: 10_000, everyMs: 10 };

/** Slot 1 of service s1 on node n1: `failed` failed tasks, then one running (ids t<from>…). */
const slotHistory = (b: EventBuilder, from: number, failed: number): ShoalEvent[] => {
  const spec = serviceSpec('web');
  const events: ShoalEvent[] = [];
  for (let i = from; i <= from + failed; i++) {
    const id = `t${i}`;
    const ends = i < from + failed;
    events.push(
      b.event('TasksCreated', { tasks: [newTask(id, 's1', spec)] }),
      b.event('TasksAllocated', { tasks: [{ id, attachments: [] }] }),
      b.event('TasksAssigned', { tasks: [{ id, nodeId: 'n1', why: 'test' }] }),
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id, state: ends ? TaskState.FAILED : TaskState.RUNNING, at: b.now() }] }),
    );
    if (ends) events.push(b.event('TaskDesiredStatesChanged', { tasks: [{ id, desiredState: TaskState.SHUTDOWN }] }));
  }
  return events;
};

/** The log, with the offsets each `follow` started from. */
const watched = (log: EventLog): { log: EventLog; follows: number[] } => {
  const follows: number[] = [];
  const proxy = new Proxy(log, {
    get(target, key) {
      if (key === 'follow') return (from: number, ...rest: unknown[]) => (follows.push(from), (target.follow as (...a: unknown[]) => unknown)(from, ...rest));
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { log: proxy, follows };
};

describe('a component runner with snapshots', () => {
  let log: EmbeddedEventLog;
  let closeLog: () => Promise<void>;
  let dir: string;
  beforeEach(async () => {
    ({ log, close: closeLog } = await openEmbeddedTestLog('shoal-snapshots-'));
    dir = mkdtempSync(join(tmpdir(), 'shoal-snapshot-store-'));
  });
  afterEach(async () => {
    await closeLog();
    rmSync(dir, { recursive: true, force: true });
  });

  const append = (events: readonly ShoalEvent[]) => log.append(events.map((e) => ({ key: 'c1', value: encode(e) })));
  const replayHash = async (): Promise<string> => {
    const projection = new Projection();
    for (const record of await log.read(0)) projection.apply(record);
    return projection.hash();
  };
  const runner = (on: EventLog, activity: RunnerActivity[] = []) =>
    new ComponentRunner(on, new ReaperCore(), { cluster: 'c1', instance: 'reaper-a', snapshots: { store: new FileSnapshotStore(dir), everyMs: 60_000 }, onActivity: (a) => activity.push(a) });

  it('saves its view when it stops; the next process starts from it, reads only the tail, and acts on the whole state', async () => {
    const b = new EventBuilder();
    await append([
      b.event('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 2 } }, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }) }),
      b.event('ServiceCreated', { id: 's1', spec: serviceSpec('web') }),
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
      ...slotHistory(b, 0, 1),
    ]);
    const told: RunnerActivity[] = [];
    const first = runner(log, told);
    await first.start();
    await eventually('the first runner is active', () => first.state === 'active', WITHIN);
    await first.stop();
    const saved = await new FileSnapshotStore(dir).latest();
    const end = await log.highWaterMark();
    expect(saved).toMatchObject({ offset: end, hash: await replayHash() });
    // It says so, with how long the snapshot took.
    expect(told).toContainEqual({ kind: 'snapshot saved', offset: end, ms: expect.any(Number) });

    // More history while no reaper runs: t1 fails and t2 replaces it; slot 1 is one task over the limit.
    await append([
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.FAILED, at: b.now() }] }),
      b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.SHUTDOWN }] }),
      ...slotHistory(b, 2, 0),
    ]);
    const activity: RunnerActivity[] = [];
    const { log: spied, follows } = watched(log);
    const second = runner(spied, activity);
    await second.start();
    expect(activity[0]).toEqual({ kind: 'restored', offset: end });
    expect(follows).toEqual([end]);
    // The core knows the tasks from before the snapshot too: the oldest goes.
    await eventually('t0 is removed', () => !second.view.state.tasks.has('t0'), WITHIN);
    expect([...second.view.state.tasks.keys()].sort()).toEqual(['t1', 't2']);
    await eventually('the view has read the log to its end', async () => second.view.position === (await log.highWaterMark()), WITHIN);
    expect(second.view.projection.hash()).toBe(await replayHash());
    await second.stop();
  });

  it('saves a view replayed from the start even when no record came after; not one restored where it stands', async () => {
    const b = new EventBuilder();
    await append([clusterInit(b), b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') })]);
    const store = new FileSnapshotStore(dir);
    const replayed = new LiveView(log);
    await replayed.start();
    await new SnapshotSaver({ store, everyMs: 60_000 }, () => replayed, (message) => { throw new Error(message); }).flush();
    await replayed.stop();
    expect(await store.list()).toEqual([2]);

    const restored = new LiveView(log, { snapshot: (await store.latest())! });
    await restored.start();
    const saves: number[] = [];
    const watching = { ...store, save: async (snapshot: { offset: number }) => void saves.push(snapshot.offset), latest: () => store.latest(), list: () => store.list() };
    await new SnapshotSaver({ store: watching, everyMs: 60_000 }, () => restored, (message) => { throw new Error(message); }, 2).flush();
    await restored.stop();
    expect(saves).toEqual([]);
  });

  it('takes timed snapshots in at most a tenth of the time: after one that took 5 s, none for the next 45 s; flush saves at once', async () => {
    const b = new EventBuilder();
    await append([clusterInit(b), b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') })]);
    const view = new LiveView(log);
    await view.start();
    let clock = 0;
    const saves: number[] = [];
    // Each save takes 5 s of the clock.
    const slow = { ...new FileSnapshotStore(dir), save: async (snapshot: { offset: number }) => void (saves.push(snapshot.offset), (clock += 5_000)) };
    const saver = new SnapshotSaver({ store: slow as never, everyMs: 1_000 }, () => view, (message) => { throw new Error(message); }, -1, () => clock);
    const moved = async (id: string): Promise<void> => {
      await append([b.event('NodeRegistered', { id, role: 'worker', description: nodeDescription(id) })]);
      await view.waitFor(await log.highWaterMark());
    };
    try {
      await saver.saveIfDue();
      expect(saves).toEqual([2]);
      await moved('n2');
      clock = 5_000 + 44_999;
      await saver.saveIfDue();
      expect(saves).toEqual([2]);
      clock = 5_000 + 45_000;
      await saver.saveIfDue();
      expect(saves).toEqual([2, 3]);
      await moved('n3');
      await saver.flush();
      expect(saves).toEqual([2, 3, 4]);
    } finally {
      await view.stop();
    }
  });

  it('a core idle while standing by learns a restored view once, on taking over; another at once, and again on taking over', async () => {
    const b = new EventBuilder();
    await append([clusterInit(b), b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') })]);
    const first = runner(log);
    await first.start();
    await eventually('the first runner is active', () => first.state === 'active', WITHIN);
    await first.stop();

    const learnt = async (idleWhileStandby: boolean): Promise<string[]> => {
      const heard: string[] = [];
      const core = new ReaperCore();
      const watched = Object.assign(Object.create(core) as ReaperCore, {
        idleWhileStandby,
        reconcileAll: (state: Parameters<ReaperCore['reconcileAll']>[0]) => (heard.push('learn'), core.reconcileAll(state)),
        reconcileInSteps: (state: Parameters<ReaperCore['reconcileAll']>[0]) => (heard.push('learn'), core.reconcileInSteps(state)),
        observe: (...args: Parameters<ReaperCore['observe']>) => (heard.push(`observe ${args[0].type}`), core.observe(...args)),
      });
      const next = new ComponentRunner(log, watched, { cluster: 'c1', instance: `reaper-${idleWhileStandby}`, snapshots: { store: new FileSnapshotStore(dir), everyMs: 60_000 }, onActivity: (a) => a.kind === 'restored' && heard.push('restored') });
      await next.start();
      await eventually('it is active', () => next.state === 'active', WITHIN);
      await eventually('it has read its own term', async () => next.view.position === (await log.highWaterMark()), WITHIN);
      await next.stop();
      return heard;
    };
    // Its own OwnershipTaken is in the state it learns on taking over.
    expect(await learnt(true)).toEqual(['restored', 'learn']);
    expect(await learnt(false)).toEqual(['learn', 'restored', 'observe OwnershipTaken', 'learn']);
  });

  it('takes no snapshot for fewer records since the last than a thousandth of the state\'s entities', async () => {
    const b = new EventBuilder();
    const nodes = Array.from({ length: 1_500 }, (_, i) => b.event('NodeRegistered', { id: `n${i}`, role: 'worker', description: nodeDescription(`n${i}`) }));
    await append([clusterInit(b), ...nodes]);
    const view = new LiveView(log);
    await view.start();
    const saves: number[] = [];
    const watching = { save: async (snapshot: { offset: number }) => void saves.push(snapshot.offset), latest: async () => undefined, list: async () => [] };
    const saver = new SnapshotSaver({ store: watching as never, everyMs: 60_000 }, () => view, (message) => { throw new Error(message); });
    let added = 0;
    const more = async (count: number): Promise<void> => {
      await append(Array.from({ length: count }, () => b.event('NodeRegistered', { id: `m${++added}`, role: 'worker', description: nodeDescription('m') })));
      await view.waitFor(await log.highWaterMark());
    };
    try {
      await saver.flush();
      expect(saves).toEqual([1_501]);
      // 1,501 entities and more: one record is not enough, two are; so on stopping too.
      await more(1);
      await saver.flush();
      expect(saves).toEqual([1_501]);
      await more(1);
      await saver.flush();
      expect(saves).toEqual([1_501, 1_503]);
    } finally {
      await view.stop();
    }
  });

  it('does not use a snapshot of another cluster\'s log, nor one past the end of the log', async () => {
    const b = new EventBuilder();
    await append([clusterInit(b), b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') })]);
    const first = runner(log);
    await first.start();
    await first.stop();
    const saved = (await new FileSnapshotStore(dir).latest())!;

    const other = await openEmbeddedTestLog('shoal-snapshots-other-');
    try {
      const c2 = new EventBuilder('c2');
      await other.log.append([clusterInit(c2), c2.event('NodeRegistered', { id: 'm1', role: 'worker', description: nodeDescription('m1') }), c2.event('NodeRegistered', { id: 'm2', role: 'worker', description: nodeDescription('m2') })].map((e) => ({ key: 'c2', value: encode(e) })));
      expect(await snapshotFor(other.log, new FileSnapshotStore(dir))).toEqual({ refused: `the log's record at offset ${saved.offset - 1} is not of cluster c1: the snapshot belongs to another log` });

      const activity: RunnerActivity[] = [];
      const stranger = new ComponentRunner(other.log, new ReaperCore(), { cluster: 'c2', instance: 'reaper-b', snapshots: { store: new FileSnapshotStore(dir), everyMs: 60_000 }, onActivity: (a) => activity.push(a) });
      await stranger.start();
      expect(activity[0]).toMatchObject({ kind: 'not restored' });
      expect([...stranger.view.state.nodes.keys()].sort()).toEqual(['m1', 'm2']);
      await stranger.stop();
    } finally {
      await other.close();
    }

    const empty = await openEmbeddedTestLog('shoal-snapshots-empty-');
    try {
      expect(await snapshotFor(empty.log, new FileSnapshotStore(dir))).toEqual({ refused: expect.stringMatching(/is past the end of the log \(0\)/) });
    } finally {
      await empty.close();
    }
  });
});
