/**
 * Converged: the state is what the services ask for, with nothing under way. Each
 * replicated service has as many tasks meant to run as it has replicas, in distinct slots,
 * every one RUNNING on a node and on the service's current task spec (the update
 * supervisor's own test of "dirty"), and no update running or paused; nothing of a removed
 * service is meant to run. Pure: the reasons it is not converged yet, none when it is.
 */
import { TaskState, taskStateName } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import { isTaskDirty } from '@shoal/domain';
import type { ClusterState } from '@shoal/domain';

/** Meant to run: desired RUNNING, or READY (waiting to start). */
const runnable = (task: Task): boolean => task.desiredState <= TaskState.RUNNING;

export const unconverged = (state: ClusterState): string[] => {
  const reasons: string[] = [];
  const byService = new Map<string, Task[]>();
  for (const task of state.tasks.values()) if (runnable(task)) byService.set(task.serviceId, [...(byService.get(task.serviceId) ?? []), task]);
  for (const [serviceId, tasks] of byService) if (!state.services.has(serviceId)) reasons.push(`removed service ${serviceId} still has ${tasks.length} task(s) meant to run`);
  for (const service of state.services.values()) {
    const { mode, name } = service.spec;
    if (mode.kind !== 'replicated') continue;
    const tasks = byService.get(service.id) ?? [];
    const slots = new Set(tasks.map((task) => task.slot));
    const running = tasks.filter((task) => task.desiredState === TaskState.RUNNING && task.status.state === TaskState.RUNNING && task.nodeId !== undefined);
    const dirty = tasks.filter((task) => isTaskDirty(service, task, task.nodeId === undefined ? undefined : state.nodes.get(task.nodeId)));
    const update = service.updateStatus?.state;
    if (tasks.length !== mode.replicas || slots.size !== mode.replicas) reasons.push(`${name}: ${tasks.length} task(s) meant to run in ${slots.size} slot(s), ${mode.replicas} replicas asked for`);
    else if (running.length !== mode.replicas) reasons.push(`${name}: ${running.length} of ${mode.replicas} running`);
    else if (dirty.length > 0) reasons.push(`${name}: ${dirty.length} task(s) on an old spec`);
    else if (update === 'updating' || update === 'rollback_started' || update === 'paused' || update === 'rollback_paused') reasons.push(`${name}: update ${update}`);
  }
  return reasons;
};

/** The tasks of each service `unconverged` names, one line each: what to read first when a run does not converge. */
export const unconvergedDetail = (state: ClusterState): string[] => {
  const named = new Set(unconverged(state).map((reason) => reason.slice(0, reason.indexOf(':'))));
  const lines: string[] = [];
  for (const service of state.services.values()) {
    if (!named.has(service.spec.name)) continue;
    const mode = service.spec.mode.kind === 'replicated' ? `${service.spec.mode.replicas} replicas` : service.spec.mode.kind;
    lines.push(`${service.spec.name} (${service.id}, version ${service.version}, ${mode}, update ${service.updateStatus?.state ?? 'none'}):`);
    const tasks = [...state.tasks.values()].filter((task) => task.serviceId === service.id).sort((a, b) => (a.slot ?? 0) - (b.slot ?? 0) || a.id.localeCompare(b.id));
    for (const task of tasks) {
      lines.push(`  slot ${task.slot ?? '-'} ${task.id}: ${taskStateName(task.status.state)} desired ${taskStateName(task.desiredState)} on ${task.nodeId ?? 'no node'}${task.status.message ? `: ${task.status.message}` : ''}${task.status.err ? ` (${task.status.err})` : ''}`);
    }
  }
  return lines;
};
