/** Assignment messages for the agent's specs. */
import { TaskState } from '@shoal/contracts';
import type { ConfigReference, ContainerSpec } from '@shoal/contracts';
import type { AssignmentChangeMessage, AssignmentMessage, AssignmentsMessage, ConfigChangeMessage } from '@shoal/protocol';

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

/** A task whose container is `container` (over a busybox image). */
export const assignmentOf = (taskId: string, container: Partial<ContainerSpec>): AssignmentMessage =>
  assignment(taskId, [], { specJson: JSON.stringify({ container: { image: 'busybox', ...container } }) });

/** A reference to config `configId`, as a task's spec names it, at `target`. */
export const configReference = (configId: string, target = `/etc/${configId}.conf`, mode = 0o444): ConfigReference => ({
  configId,
  configName: `${configId}-name`,
  file: { name: target, uid: '0', gid: '0', mode },
});

export const update = (value: AssignmentMessage): AssignmentChangeMessage => ({ action: 'UPDATE', assignment: value });
export const remove = (taskId: string): AssignmentChangeMessage => ({ action: 'REMOVE', assignment: assignment(taskId) });
export const complete = (...changes: AssignmentChangeMessage[]): AssignmentsMessage => ({ type: 'COMPLETE', changes, configs: [] });
export const incremental = (...changes: AssignmentChangeMessage[]): AssignmentsMessage => ({ type: 'INCREMENTAL', changes, configs: [] });

/** A config sent to the node (named `<id>-name`), or its removal. */
export const addConfig = (id: string, data: string): ConfigChangeMessage => ({ action: 'UPDATE', config: { id, name: `${id}-name`, data: Buffer.from(data) } });
/** A secret as the dispatcher sends it: opened, marked secret. */
export const addSecret = (id: string, data: string): ConfigChangeMessage => ({ action: 'UPDATE', config: { id, name: `${id}-name`, data: Buffer.from(data), secret: true } });
export const removeConfig = (id: string): ConfigChangeMessage => ({ action: 'REMOVE', config: { id, name: '', data: Buffer.alloc(0) } });

/** `message` carrying these config changes too. */
export const withConfigs = (message: AssignmentsMessage, ...configs: ConfigChangeMessage[]): AssignmentsMessage => ({ ...message, configs });
