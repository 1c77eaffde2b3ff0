/** Orphans: the live tasks of a node DOWN longer than the node-down period. */
import { TaskState } from '@shoal/contracts';
import { assigned, beat, connect, dispatcherSpecification, report, taskState } from '@shoal/testing';

const { RUNNING, COMPLETE, ORPHANED } = TaskState;

describe('dispatcher: orphans', () => {
  const setup = () => {
    const h = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: 1_000 }, nodeDownPeriodMs: 10_000 });
    h.reconcileAll();
    connect(h, 'n1');
    h.apply(assigned('running', 'n1', 1));
    h.apply(assigned('assigned', 'n1', 2));
    h.apply(assigned('done', 'n1', 3));
    report(h, 'n1', 'running', RUNNING);
    report(h, 'n1', 'done', COMPLETE);
    h.tick();
    h.advance(3_000);
    h.tick();
    expect(h.state.nodes.get('n1')?.status.state).toBe('down');
    return h;
  };

  it('ORPHANs the live tasks of a node DOWN longer than the node-down period, and leaves stopped ones', () => {
    const h = setup();
    expect(h.core.wakeAt(h.state)).toBe(h.clock + 10_000);
    h.advance(9_999);
    expect(h.tick()).toEqual([]);
    h.advance(1);
    const [event] = h.tick();
    expect(event).toMatchObject({ type: 'TaskStatusesReported', data: { nodeId: 'n1' } });
    expect(h.proposed.at(-1)?.verdict.status).toBe('applied');
    expect([taskState(h, 'running'), taskState(h, 'assigned'), taskState(h, 'done')]).toEqual([ORPHANED, ORPHANED, COMPLETE]);
    expect(h.state.tasks.get('running')?.status.message).toMatch(/node n1 has been down for more than 10000 ms/);
    expect(h.tick()).toEqual([]);
    expect(h.core.wakeAt(h.state)).toBeUndefined();
  });

  it('does not orphan the tasks of a node that came back in time', () => {
    const h = setup();
    h.advance(5_000);
    connect(h, 'n1');
    h.advance(5_000);
    beat(h, 'n1');
    expect(h.tick()).toEqual([]);
    expect(taskState(h, 'running')).toBe(RUNNING);
  });

  it('waits 24 hours by default', () => {
    const h = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: 1_000 }, nodeDownPeriodMs: undefined });
    h.reconcileAll();
    connect(h, 'n1');
    h.apply(assigned('t', 'n1'));
    h.advance(3_000);
    h.tick();
    h.advance(24 * 3_600_000 - 1);
    expect(h.tick()).toEqual([]);
    h.advance(1);
    h.tick();
    expect(taskState(h, 't')).toBe(ORPHANED);
  });
});

