/**
 * Update status: what the supervisor writes on the service as an update moves along, in
 * the words Docker prints (`docker service inspect`, `docker service ps`). Every change
 * expects the service version it was decided for, so a status never lands on a newer
 * update than the one it is about.
 */
import type { UpdateStatus } from '@shoal/contracts';
import type { Proposal } from '../../component-core';
import type { Service } from '../../state';

export const UPDATE_MESSAGES = {
  started: 'update in progress',
  completed: 'update completed',
  rollbackCompleted: 'rollback completed',
  manualRollback: 'manually requested rollback',
  paused: (taskId: string) => `update paused due to failure or early termination of task ${taskId}`,
  rolledBack: (taskId: string) => `update rolled back due to failure or early termination of task ${taskId}`,
  rollbackPaused: (taskId: string) => `rollback paused due to failure or early termination of task ${taskId}`,
  noPreviousSpec: (taskId: string) =>
    `update paused due to failure or early termination of task ${taskId}: there is no previous spec to roll back to`,
} as const;

/** The status change, valid only while the service is still at `version`. */
export const statusChange = (service: Service, status: UpdateStatus, version = service.version): Proposal => ({
  type: 'ServiceUpdateStatusChanged',
  data: { id: service.id, status },
  expect: { serviceVersions: { [service.id]: version } },
});

export const isPaused = (status: UpdateStatus | undefined): boolean =>
  status?.state === 'paused' || status?.state === 'rollback_paused';

export const isRunning = (status: UpdateStatus | undefined): boolean =>
  status?.state === 'updating' || status?.state === 'rollback_started';

export const isRollback = (status: UpdateStatus | undefined): boolean =>
  status?.state === 'rollback_started' || status?.state === 'rollback_paused' || status?.state === 'rollback_completed';
