import { TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { replay } from '@shoal/domain';
import { EventBuilder, clusterInit, newTask, nodeDescription, serviceSpec, toRecords } from '@shoal/testing';
import { unconverged, unconvergedDetail } from './convergence';

const web = (replicas: number, image = 'nginx:1.27') => ({ ...serviceSpec('web', { kind: 'replicated', replicas }), task: { container: { image } } });

/** Service s1 of two replicas; `running` of its two tasks report RUNNING on n1. */
const history = (b: EventBuilder, running: number): ShoalEvent[] => {
  const tasks = [1, 2].map((slot) => newTask(`t${slot}`, 's1', web(2), { slot }));
  return [
    clusterInit(b),
    b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
    b.event('ServiceCreated', { id: 's1', spec: web(2) }),
    b.event('TasksCreated', { tasks }),
    b.event('TasksAllocated', { tasks: tasks.map(({ id }) => ({ id, attachments: [] })) }),
    b.event('TasksAssigned', { tasks: tasks.map(({ id }) => ({ id, nodeId: 'n1', why: 'test' })) }),
    b.event('TaskStatusesReported', { nodeId: 'n1', statuses: tasks.slice(0, running).map(({ id }) => ({ id, state: TaskState.RUNNING, at: b.now() })) }),
  ];
};

describe('converged', () => {
  it('is every replica running on the current spec', () => {
    expect(unconverged(replay(toRecords(history(new EventBuilder(), 2))).state)).toEqual([]);
  });

  it('is not while a replica has yet to run', () => {
    expect(unconverged(replay(toRecords(history(new EventBuilder(), 1))).state)).toEqual(['web: 1 of 2 running']);
  });

  it('is not while tasks run an old spec, nor with a replica too few', () => {
    const b = new EventBuilder();
    const before = history(b, 2);
    const updated = replay(toRecords([...before, b.event('ServiceUpdated', { id: 's1', spec: web(2, 'nginx:1.28') })])).state;
    expect(unconverged(updated)).toEqual(['web: 2 task(s) on an old spec']);
    const c = new EventBuilder();
    const again = history(c, 2);
    const scaled = replay(toRecords([...again, c.event('ServiceUpdated', { id: 's1', spec: web(3) })])).state;
    expect(unconverged(scaled)).toEqual(['web: 2 task(s) meant to run in 2 slot(s), 3 replicas asked for']);
  });

  it('is not while a removed service still has a task meant to run', () => {
    const b = new EventBuilder();
    const before = history(b, 2);
    const removed = replay(toRecords([...before, b.event('ServiceRemoved', { id: 's1' })])).state;
    expect(unconverged(removed)).toEqual([expect.stringMatching(/^removed service s1 still has \d task\(s\) meant to run$/)]);
  });

  it('details the tasks of each service that has not converged, and of no other', () => {
    const state = replay(toRecords(history(new EventBuilder(), 1))).state;
    const lines = unconvergedDetail(state);
    expect(lines[0]).toBe('web (s1, version 1, 2 replicas, update none):');
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^ {2}slot 1 t1: RUNNING desired RUNNING on n1/), expect.stringMatching(/^ {2}slot 2 t2: ASSIGNED desired RUNNING on n1/)]);
    expect(unconvergedDetail(replay(toRecords(history(new EventBuilder(), 2))).state)).toEqual([]);
  });
});
