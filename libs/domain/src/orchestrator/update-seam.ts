/**
 * The one place the orchestrator calls the update supervisor: for a service whose tasks
 * may need replacing because their spec is out of date (a rolling update or rollback).
 */
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '../state';
import type { UpdateStep } from './update';

/** `tasks`: the service's tasks in log order, from the orchestrator's index (so the call need not scan the cluster). */
export type UpdateSupervisor = (
  state: ClusterState,
  serviceId: string,
  now: Date,
  newId: () => string,
  tasks?: readonly Task[],
) => UpdateStep;

/** Update states in which the supervisor is at work on a service. */
export const UPDATE_IN_PROGRESS: ReadonlySet<string> = new Set(['updating', 'rollback_started']);

/** Until an update supervisor is given, nothing is replaced for being out of date. */
export const noUpdates: UpdateSupervisor = () => ({ proposals: [] });
