import { TaskState, isAgentReportable, isTerminal, parseTaskState, taskStateName } from './task-state';

describe('task states', () => {
  it('are ordered as the task lifecycle runs', () => {
    const order = ['NEW', 'PENDING', 'ASSIGNED', 'ACCEPTED', 'PREPARING', 'READY', 'STARTING', 'RUNNING', 'COMPLETE', 'SHUTDOWN', 'FAILED', 'REJECTED', 'REMOVE', 'ORPHANED'] as const;
    const values = order.map((name) => TaskState[name]);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
  });

  it('name and parse each other', () => {
    expect(taskStateName(TaskState.STARTING)).toBe('STARTING');
    expect(parseTaskState('running')).toBe(TaskState.RUNNING);
    expect(parseTaskState('sleeping')).toBeUndefined();
  });

  it('know what is terminal and what an agent reports', () => {
    expect(isTerminal(TaskState.RUNNING)).toBe(false);
    expect(isTerminal(TaskState.COMPLETE)).toBe(true);
    expect(isAgentReportable(TaskState.ASSIGNED)).toBe(false);
    expect(isAgentReportable(TaskState.ACCEPTED)).toBe(true);
    expect(isAgentReportable(TaskState.REMOVE)).toBe(false);
  });
});
