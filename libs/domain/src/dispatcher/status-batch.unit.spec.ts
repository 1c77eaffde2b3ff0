/** Task statuses from the agents, batched into TaskStatusesReported. */
import { TaskState } from '@shoal/contracts';
import { DispatcherCore } from './dispatcher-core';
import { assigned, connect, dispatcherSpecification, report, taskState } from '@shoal/testing';

const { ASSIGNED, RUNNING, STARTING, COMPLETE } = TaskState;

describe('dispatcher: task statuses', () => {
  it('batches the statuses of each node into one TaskStatusesReported, which evolve applies', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    connect(h, 'n1');
    connect(h, 'n2');
    h.apply(assigned('a', 'n1', 1));
    h.apply(assigned('b', 'n1', 2));
    h.apply(assigned('c', 'n2', 3));
    report(h, 'n1', 'a', STARTING);
    report(h, 'n2', 'c', RUNNING);
    report(h, 'n1', 'a', RUNNING);
    report(h, 'n1', 'b', COMPLETE);
    const events = h.tick();
    expect(events.map((e) => e.type === 'TaskStatusesReported' && [e.data.nodeId, e.data.statuses.map((s) => `${s.id}:${s.state}`)])).toEqual([
      ['n1', [`a:${STARTING}`, `a:${RUNNING}`, `b:${COMPLETE}`]],
      ['n2', [`c:${RUNNING}`]],
    ]);
    expect(h.proposed.every((p) => p.verdict.status === 'applied')).toBe(true);
    expect([taskState(h, 'a'), taskState(h, 'b'), taskState(h, 'c')]).toEqual([RUNNING, COMPLETE, RUNNING]);
  });

  it('ignores, with a log line, statuses for tasks not on the reporting node, and keeps the rest', () => {
    const logged: string[] = [];
    const h = dispatcherSpecification({}, { log: (line) => logged.push(line) });
    h.reconcileAll();
    connect(h, 'n1');
    connect(h, 'n2');
    h.apply(assigned('mine', 'n1', 1));
    h.apply(assigned('theirs', 'n2', 2));
    report(h, 'n1', 'theirs', RUNNING);
    report(h, 'n1', 'ghost', RUNNING);
    report(h, 'n1', 'mine', RUNNING);
    const events = h.tick();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ data: { nodeId: 'n1', statuses: [{ id: 'mine', state: RUNNING }] } });
    expect(taskState(h, 'theirs')).toBe(ASSIGNED);
    expect(logged).toEqual([
      'ignoring a status from node n1 for task theirs: it is not assigned to that node',
      'ignoring a status from node n1 for task ghost: no such task',
    ]);
  });

  it('drops a repeated or backward status instead of proposing what evolve would refuse', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    connect(h, 'n1');
    h.apply(assigned('a', 'n1'));
    report(h, 'n1', 'a', RUNNING);
    h.tick();
    report(h, 'n1', 'a', RUNNING);
    report(h, 'n1', 'a', STARTING);
    expect(h.tick()).toEqual([]);
  });

  it('puts at most the batch limit of statuses in one decision and the rest in the next', () => {
    const h = dispatcherSpecification();
    const core = new DispatcherCore(h.core.sessions, { maxStatusBatch: 2 });
    core.reconcileAll(h.state);
    for (const id of ['x', 'y', 'z']) h.core.sessions.report('n1', [{ id, state: RUNNING, at: 'now' }]);
    core.decide(h.state, new Date(h.clock));
    expect(h.core.sessions.pendingStatuses).toBe(1);
    core.decide(h.state, new Date(h.clock));
    expect(h.core.sessions.pendingStatuses).toBe(0);
  });
});

