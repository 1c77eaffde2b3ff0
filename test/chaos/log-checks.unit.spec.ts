import { DEFAULT_UPDATE_CONFIG, TaskState } from '@shoal/contracts';
import type { ShoalEvent, UpdateOrder } from '@shoal/contracts';
import { EventBuilder, clusterInit, newTask, nodeDescription, serviceSpec, toRecords } from '@shoal/testing';
import { judgeLog } from './log-checks';

const web = (order: UpdateOrder, image = 'nginx:1.27') => ({ ...serviceSpec('web'), task: { container: { image } }, update: { ...DEFAULT_UPDATE_CONFIG, order } });

// Events are built in log order: a writer's seq counts up as they are built, and evolve
// drops a record whose (writer, seq) it has already applied.

/** Two nodes, service s1 (one replica, this update order) whose task t1 runs on n1. */
const running = (b: EventBuilder, order: UpdateOrder): ShoalEvent[] => [
  clusterInit(b),
  b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
  b.event('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('n2') }),
  b.event('ServiceCreated', { id: 's1', spec: web(order) }),
  b.event('TasksCreated', { tasks: [newTask('t1', 's1', web(order))] }),
  b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
  b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'test' }] }),
  b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }),
];

/** The service updated to a new image, and t2 created in t1's slot to replace it, placed on n2 and running. */
const replaced = (b: EventBuilder, order: UpdateOrder): ShoalEvent[] => [
  b.event('ServiceUpdated', { id: 's1', spec: web(order, 'nginx:1.28') }),
  b.event('TasksCreated', { tasks: [newTask('t2', 's1', web(order, 'nginx:1.28'), { specVersion: 2, replaces: 't1' })] }),
  b.event('TasksAllocated', { tasks: [{ id: 't2', attachments: [] }] }),
  b.event('TasksAssigned', { tasks: [{ id: 't2', nodeId: 'n2', why: 'test' }] }),
  b.event('TaskStatusesReported', { nodeId: 'n2', statuses: [{ id: 't2', state: TaskState.RUNNING, at: b.now() }] }),
  b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.SHUTDOWN, reason: 'updated to service version 2' }] }),
];

describe('judging a chaos run from its log', () => {
  it('finds nothing wrong in a start-first update, and counts its pair', () => {
    const b = new EventBuilder();
    const findings = judgeLog(toRecords([...running(b, 'start-first'), ...replaced(b, 'start-first')]), [], []);
    expect(findings.tally).toMatchObject({ rejected: 0, partial: 0, poison: 0 });
    expect(findings.doubled).toEqual([]);
    expect(findings.startFirstPairs).toBe(1);
    expect(findings.lost).toEqual([]);
  });

  it('finds a slot doubled when the same replacement comes under a stop-first order', () => {
    const b = new EventBuilder();
    const findings = judgeLog(toRecords([...running(b, 'stop-first'), ...replaced(b, 'stop-first')]), [], []);
    expect(findings.tally).toMatchObject({ rejected: 0, partial: 0 });
    expect(findings.doubled).toEqual([expect.stringMatching(/^@\d+ \S+ slot s1\/1: t1 on n1 \(RUNNING\), t2 on n2 \(ASSIGNED\)$/)]);
    expect(findings.startFirstPairs).toBe(0);
  });

  it('finds a slot doubled when a second task that replaces nothing is placed beside a running one', () => {
    const b = new EventBuilder();
    const before = running(b, 'start-first');
    const second = [
      b.event('TasksCreated', { tasks: [newTask('t2', 's1', web('start-first'))] }),
      b.event('TasksAllocated', { tasks: [{ id: 't2', attachments: [] }] }),
      b.event('TasksAssigned', { tasks: [{ id: 't2', nodeId: 'n2', why: 'test' }] }),
    ];
    const findings = judgeLog(toRecords([...before, ...second]), [], []);
    expect(findings.tally).toMatchObject({ rejected: 0, partial: 0 });
    expect(findings.doubled).toEqual([expect.stringMatching(/^@10 [0-9T:.-]+Z slot s1\/1: t1 on n1 \(RUNNING\), t2 on n2 \(ASSIGNED\)$/)]);
  });

  it('finds lost: a task failed, a node marked down, a restart', () => {
    const b = new EventBuilder();
    const before = running(b, 'stop-first');
    const trouble = [
      b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down', message: 'heartbeat failure' }] }),
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.FAILED, at: b.now(), err: 'gone' }] }),
      b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.SHUTDOWN, reason: 'restarted: the task failed' }] }),
    ];
    const findings = judgeLog(toRecords([...before, ...trouble]), [], []);
    expect(findings.tally).toMatchObject({ rejected: 0, partial: 0 });
    expect(findings.lost).toEqual([
      expect.stringMatching(/node n1 marked down: heartbeat failure$/),
      expect.stringMatching(/task t1 on node n1 reported FAILED: gone$/),
      expect.stringMatching(/task t1 restarted: restarted: the task failed$/),
    ]);
  });

  it('finds an acknowledged write the log does not hold, and none for those it does', () => {
    const b = new EventBuilder();
    const records = toRecords([...running(b, 'start-first'), ...replaced(b, 'start-first')]);
    const findings = judgeLog(records, [
      { kind: 'create', id: 's1', name: 'web' },
      { kind: 'update', id: 's1', from: 1 },
      { kind: 'update', id: 's1', from: 2 },
      { kind: 'create', id: 's9', name: 'ghost' },
      { kind: 'remove', id: 's1' },
    ], []);
    expect(findings.unacknowledged).toEqual([
      'service s1 updated from version 2 (200) but no applied ServiceUpdated made version 3',
      'service ghost (s9) created (201) but no applied ServiceCreated',
      'service s1 removed (200) but no applied ServiceRemoved',
    ]);
  });

  it('matches the poison written against the poison counted, both ways', () => {
    const b = new EventBuilder();
    const records = toRecords([...running(b, 'start-first'), '{not json', '']);
    expect(judgeLog(records, [], [8, 9]).poisonMismatch).toEqual([]);
    expect(judgeLog(records, [], [7, 8])).toMatchObject({
      poisonMismatch: ['poison written at 7 not counted as poison', 'record at 9 counted as poison, not written as poison'],
      tally: { poison: 2 },
    });
  });
});
