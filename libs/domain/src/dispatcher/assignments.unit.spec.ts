/** Assignments: a node's tasks, as a complete set and then as changes. */
import { TaskState } from '@shoal/contracts';
import { newTask, serviceSpec } from '@shoal/testing';
import { AssignmentTracker } from './assignments';
import { DispatcherHarness } from './dispatcher.test-harness';

const { ASSIGNED, RUNNING, SHUTDOWN, REMOVE, FAILED } = TaskState;

describe('dispatcher: assignments', () => {
  it('tells the node’s session when its tasks change, not when only their observed state does', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    const n1 = h.connect('n1');
    const n2 = h.connect('n2');
    h.assign('t1', 'n1');
    expect(n1.heard).toEqual(['opened, period 5000', 'assignments']);
    expect(n2.heard).toEqual(['opened, period 5000']);
    h.report('n1', 't1', RUNNING);
    h.tick();
    expect(n1.heard).toEqual(['opened, period 5000', 'assignments']);
    h.apply('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: SHUTDOWN }] });
    expect(n1.heard).toEqual(['opened, period 5000', 'assignments', 'assignments']);
    expect([...h.core.tasksOf('n1')]).toEqual(['t1']);
  });

  it('a stream gets the complete set first, then only what changed', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    h.connect('n1');
    h.assign('t1', 'n1', 1);
    h.assign('t2', 'n1', 2);
    h.assign('other', 'n2-missing', 3);
    const tracker = new AssignmentTracker();
    const set = tracker.complete(h.state, h.core.tasksOf('n1'));
    expect(set.map((a) => [a.taskId, a.serviceName, a.slot, a.desiredState, a.observedState])).toEqual([
      ['t1', 'web', 1, RUNNING, ASSIGNED],
      ['t2', 'web', 2, RUNNING, ASSIGNED],
    ]);
    expect(tracker.changes(h.state, h.core.tasksOf('n1'))).toEqual([]);

    h.assign('t3', 'n1', 3);
    h.apply('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: REMOVE }] });
    h.report('n1', 't2', FAILED);
    h.tick();
    h.apply('TasksRemoved', { tasks: [{ id: 't2', reason: 'history' }] });
    const changes = tracker.changes(h.state, h.core.tasksOf('n1'));
    expect(changes).toEqual([
      { action: 'update', assignment: expect.objectContaining({ taskId: 't1', desiredState: REMOVE }) },
      { action: 'update', assignment: expect.objectContaining({ taskId: 't3', desiredState: RUNNING }) },
      { action: 'remove', taskId: 't2' },
    ]);
    expect(tracker.changes(h.state, h.core.tasksOf('n1'))).toEqual([]);
  });

  it('does not hand out tasks before they are assigned', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    h.connect('n1');
    const spec = serviceSpec('web', { kind: 'global' });
    h.apply('ServiceCreated', { id: 'g', spec });
    h.apply('TasksCreated', { tasks: [newTask('g1', 'g', spec, { slot: undefined, nodeId: 'n1' })] });
    expect(new AssignmentTracker().complete(h.state, h.core.tasksOf('n1'))).toEqual([]);
  });
});

