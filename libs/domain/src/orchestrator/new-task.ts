/** New tasks as the orchestrator makes them: for a service at its current version, in a slot or on a node. */
import { TaskState, isJob } from '@shoal/contracts';
import type { NewTask } from '@shoal/contracts';
import type { Service } from '../state';

/** Where a new task goes: a slot (replicated) or a node (global). */
export type TaskPlace = { readonly slot: number } | { readonly nodeId: string };

/** A new task for a service at its current version. */
export const newTaskFor = (
  id: string,
  service: Service,
  place: TaskPlace,
  desiredState: typeof TaskState.READY | typeof TaskState.RUNNING = TaskState.RUNNING,
): NewTask => ({
  id,
  serviceId: service.id,
  ...place,
  specVersion: service.version,
  spec: service.spec.task,
  desiredState,
  ...(isJob(service.spec.mode) ? { jobIteration: service.jobIteration ?? 0 } : {}),
});

/** A restart's replacement: it waits (desired READY) until the restart supervisor starts it. */
export const replacementTask = (id: string, service: Service, place: TaskPlace, replaces: string): NewTask => ({
  ...newTaskFor(id, service, place, TaskState.READY),
  replaces,
});
