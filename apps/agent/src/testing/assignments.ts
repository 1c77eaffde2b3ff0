/** Assignment messages for the agent's specs. */
import { TaskState } from '@shoal/contracts';
import type { AssignmentChangeMessage, AssignmentMessage, AssignmentsMessage } from '@shoal/protocol';

export const assignment = (taskId: string, env: string[] = [], overrides: Partial<AssignmentMessage> = {}): AssignmentMessage => ({
  taskId,
  serviceId: 'svc-1',
  serviceName: 'web',
  slot: 1,
  desiredState: TaskState.RUNNING,
  observedState: TaskState.ASSIGNED,
  specJson: JSON.stringify({ container: { image: 'busybox', env } }),
  ...overrides,
});

export const update = (value: AssignmentMessage): AssignmentChangeMessage => ({ action: 'UPDATE', assignment: value });
export const remove = (taskId: string): AssignmentChangeMessage => ({ action: 'REMOVE', assignment: assignment(taskId) });
export const complete = (...changes: AssignmentChangeMessage[]): AssignmentsMessage => ({ type: 'COMPLETE', changes });
export const incremental = (...changes: AssignmentChangeMessage[]): AssignmentsMessage => ({ type: 'INCREMENTAL', changes });
