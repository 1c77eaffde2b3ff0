/**
 * The one place the orchestrator calls the update supervisor: for a service whose tasks
 * may need replacing because their spec is out of date (a rolling update or rollback).
 */
import type { ClusterState } from '../state';
import type { UpdateDecision } from './update';

export type UpdateSupervisor = (state: ClusterState, serviceId: string, now: Date, newId: () => string) => UpdateDecision;

/** Update states in which the supervisor is at work on a service. */
export const UPDATE_IN_PROGRESS: ReadonlySet<string> = new Set(['updating', 'rollback_started']);

/** Until an update supervisor is given, nothing is replaced for being out of date. */
export const noUpdates: UpdateSupervisor = () => ({ proposals: [] });
