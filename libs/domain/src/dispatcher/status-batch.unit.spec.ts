/** Task statuses from the agents, batched into TaskStatusesReported. */
import { TaskState } from '@shoal/contracts';
import { DispatcherCore } from './dispatcher-core';
import { DispatcherHarness } from './dispatcher.test-harness';

const { ASSIGNED, RUNNING, STARTING, COMPLETE } = TaskState;

describe('dispatcher: task statuses', () => {
  it('batches the statuses of each node into one TaskStatusesReported, which evolve applies', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    h.connect('n1');
    h.connect('n2');
    h.assign('a', 'n1', 1);
    h.assign('b', 'n1', 2);
    h.assign('c', 'n2', 3);
    h.report('n1', 'a', STARTING);
    h.report('n2', 'c', RUNNING);
    h.report('n1', 'a', RUNNING);
    h.report('n1', 'b', COMPLETE);
    const events = h.tick();
    expect(events.map((e) => e.type === 'TaskStatusesReported' && [e.data.nodeId, e.data.statuses.map((s) => `${s.id}:${s.state}`)])).toEqual([
      ['n1', [`a:${STARTING}`, `a:${RUNNING}`, `b:${COMPLETE}`]],
      ['n2', [`c:${RUNNING}`]],
    ]);
    expect(h.proposed.every((p) => p.verdict.status === 'applied')).toBe(true);
    expect([h.taskState('a'), h.taskState('b'), h.taskState('c')]).toEqual([RUNNING, COMPLETE, RUNNING]);
  });

  it('ignores, with a log line, statuses for tasks not on the reporting node, and keeps the rest', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    h.connect('n1');
    h.connect('n2');
    h.assign('mine', 'n1', 1);
    h.assign('theirs', 'n2', 2);
    h.report('n1', 'theirs', RUNNING);
    h.report('n1', 'ghost', RUNNING);
    h.report('n1', 'mine', RUNNING);
    const events = h.tick();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ data: { nodeId: 'n1', statuses: [{ id: 'mine', state: RUNNING }] } });
    expect(h.taskState('theirs')).toBe(ASSIGNED);
    expect(h.logged).toEqual([
      'ignoring a status from node n1 for task theirs: it is not assigned to that node',
      'ignoring a status from node n1 for task ghost: no such task',
    ]);
  });

  it('drops a repeated or backward status instead of proposing what evolve would refuse', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    h.connect('n1');
    h.assign('a', 'n1');
    h.report('n1', 'a', RUNNING);
    h.tick();
    h.report('n1', 'a', RUNNING);
    h.report('n1', 'a', STARTING);
    expect(h.tick()).toEqual([]);
  });

  it('puts at most the batch limit of statuses in one decision and the rest in the next', () => {
    const h = new DispatcherHarness();
    const core = new DispatcherCore(h.sessions, { maxStatusBatch: 2 });
    core.reconcileAll(h.state);
    for (const id of ['x', 'y', 'z']) h.sessions.report('n1', [{ id, state: RUNNING, at: 'now' }]);
    core.decide(h.state, new Date(h.now));
    expect(h.sessions.pendingStatuses).toBe(1);
    core.decide(h.state, new Date(h.now));
    expect(h.sessions.pendingStatuses).toBe(0);
  });
});

