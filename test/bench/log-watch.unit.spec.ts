import { TaskState } from '@shoal/contracts';
import { LogTally, ratesOverTime } from './log-watch';
import { selfTimes } from './profile-summary';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
let seq = 0;
const record = (type: string, atMs: number, data: unknown, by: { component: string; term: number } = { component: 'dispatcher', term: 1 }) => ({
  key: 'c',
  value: JSON.stringify({ id: `r${++seq}`, type, v: 1, cluster: 'c', at: new Date(T0 + atMs).toISOString(), by: { ...by, instance: 'i' }, seq, data }),
});
const statuses = (atMs: number, ...pairs: [string, number][]) =>
  record('TaskStatusesReported', atMs, { nodeId: 'n1', statuses: pairs.map(([id, state]) => ({ id, state, at: new Date(T0 + atMs).toISOString() })) });

describe('the e2e benchmark reading a run from the log', () => {
  it('counts a task as running until it is reported past RUNNING or told to stop, and notes when each count was first reached', () => {
    const tally = new LogTally();
    tally.take([
      statuses(100, ['a', TaskState.RUNNING]),
      statuses(200, ['b', TaskState.RUNNING]),
      statuses(300, ['a', TaskState.SHUTDOWN]),
      record('TaskDesiredStatesChanged', 350, { tasks: [{ id: 'b', desiredState: TaskState.SHUTDOWN }] }, { component: 'orchestrator', term: 1 }),
      statuses(400, ['c', TaskState.RUNNING], ['d', TaskState.RUNNING]),
      statuses(500, ['e', TaskState.RUNNING]),
    ]);
    expect([...tally.live].sort()).toEqual(['c', 'd', 'e']);
    expect(tally.reached.map((t) => t - T0)).toEqual([100, 200, 500]);
    expect(tally.running.get('a')).toBe(T0 + 100);
    expect(tally.running.size).toBe(5);
    expect(tally.records).toBe(6);
  });

  it('keeps the first assignment of each task, and when each scheduler term took over and first placed', () => {
    const tally = new LogTally();
    tally.take([
      record('OwnershipTaken', 0, { component: 'scheduler', term: 1 }, { component: 'scheduler', term: 1 }),
      record('TasksAssigned', 10, { tasks: [{ id: 'a', nodeId: 'n1', why: '' }] }, { component: 'scheduler', term: 1 }),
      record('OwnershipTaken', 5_000, { component: 'scheduler', term: 2 }, { component: 'scheduler', term: 2 }),
      record('TasksAssigned', 5_100, { tasks: [{ id: 'a', nodeId: 'n2', why: '' }, { id: 'b', nodeId: 'n2', why: '' }] }, { component: 'scheduler', term: 2 }),
      record('NodeStatusChanged', 5_200, { nodes: [{ id: 'n1', state: 'down' }, { id: 'n3', state: 'ready' }] }),
    ]);
    expect(tally.assigned.get('a')).toBe(T0 + 10);
    expect(tally.assigned.size).toBe(2);
    expect(tally.schedulerTerms.get(2)).toEqual({ term: 2, takenAt: T0 + 5_000, firstAssignedAt: T0 + 5_100 });
    expect(tally.ownershipTaken.get('scheduler')).toBe(2);
    expect(tally.nodesDown).toBe(1);
  });

  it('counts bytes of keys and values, and a record that is not JSON as unreadable', () => {
    const tally = new LogTally();
    tally.take([{ key: 'k', value: 'not json' }]);
    expect(tally).toMatchObject({ records: 1, bytes: 9, unreadable: 1 });
  });

  it('gives the rate in each slice of the run', () => {
    expect(ratesOverTime([0, 100, 999, 1_000, 1_999], 0, 2_000, 2)).toEqual([3, 2]);
  });
});

describe('the CPU profile summary', () => {
  it('ranks functions by self time with their share of the samples', () => {
    const frame = (functionName: string) => ({ functionName, url: '', lineNumber: 0 });
    const ranked = selfTimes({
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 3] },
        { id: 2, callFrame: frame('hot') },
        { id: 3, callFrame: frame('cold') },
      ],
      samples: [2, 2, 3, 2],
      timeDeltas: [1_000, 1_000, 1_000, 1_000],
      startTime: 0,
      endTime: 4_000,
    });
    expect(ranked.map((t) => [t.fn, t.ms, t.share])).toEqual([
      ['hot', 3, 0.75],
      ['cold', 1, 0.25],
    ]);
  });
});
