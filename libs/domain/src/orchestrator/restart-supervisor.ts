/**
 * The restart supervisor: "make sure this task gets shut down, and maybe start a
 * replacement if the service's restart policy says so". A replacement goes into the same
 * slot (replicated) or onto the same node (global), desired READY; it is moved to RUNNING
 * once the restart delay has passed and the old task has stopped (or its node is down,
 * or a minute has gone by). Time enters the log only through that desired-state change.
 *
 * Everything it remembers — the restarts of each slot, the replacements still waiting —
 * it learns from the log: a restart's shutdown carries a reason starting with
 * `RESTARTED`, and the TasksCreated that follows names the task it `replaces`.
 */
import { TaskState, isGlobal, isJob } from '@shoal/contracts';
import type { CreatedTask, NewTask, Task, TaskDesiredStatesChanged } from '@shoal/contracts';
import type { ClusterState, Service } from '../state';
import { slotKey } from '../reaper/slots';
import { invalidNode, whyInvalid } from './decision';
import type { Decision } from './decision';
import { isRunnable } from './plan';
import { RestartHistory } from './restart-history';
import { restartPolicyOf, shouldRestart } from './restart-policy';

/** The reason a restart's shutdown starts with: its replacement follows. */
export const RESTARTED = 'restarted';
/** How long a replacement waits for the task it replaces to stop, at most (SwarmKit's old-task timeout). */
export const OLD_TASK_TIMEOUT_MS = 60_000;

export interface DelayedStart {
  readonly taskId: string;
  readonly serviceId: string;
  /** Not before this (ms): the restart delay has passed. */
  readonly startAt: number;
  /** The task it replaces, while that one may still be running. */
  readonly waitFor?: string;
  /** Stop waiting for `waitFor` at this time (ms). */
  readonly giveUpAt: number;
}

export class RestartSupervisor {
  readonly history = new RestartHistory();
  private readonly delayed = new Map<string, DelayedStart>();
  /** Tasks shut down by a restart whose replacement has not been seen yet. */
  private readonly shutForRestart = new Set<string>();

  // ── what the log says ──────────────────────────────────────────────────────
  desiredChanged(items: TaskDesiredStatesChanged['tasks']): void {
    for (const item of items) {
      if (item.reason?.startsWith(RESTARTED)) this.shutForRestart.add(item.id);
      if (item.desiredState >= TaskState.RUNNING) this.delayed.delete(item.id);
    }
  }

  /** After a TasksCreated applied at `at`: the restart replacements among its tasks. */
  created(items: readonly CreatedTask[], at: string, state: ClusterState): void {
    const createdAt = Date.parse(at);
    for (const item of items) {
      if (item.replaces === undefined || !this.shutForRestart.delete(item.replaces)) continue;
      const task = state.tasks.get(item.id);
      if (!task || task.createdAt !== at) continue;
      const policy = restartPolicyOf(task.spec);
      const key = slotKey(task);
      if (key !== undefined && policy.maxAttempts > 0) this.history.record(key, task.specVersion, createdAt, policy.windowMs);
      if (task.desiredState !== TaskState.READY) continue;
      const old = state.tasks.get(item.replaces);
      const oldNode = old?.nodeId === undefined ? undefined : state.nodes.get(old.nodeId);
      const delay = oldNode?.spec.availability === 'drain' ? 0 : policy.delayMs;
      const mayStillRun = old !== undefined && mayBeRunning(old) && oldNode !== undefined && oldNode.status.state !== 'down';
      this.delayed.set(task.id, {
        taskId: task.id,
        serviceId: task.serviceId,
        startAt: createdAt + delay,
        ...(mayStillRun ? { waitFor: old.id } : {}),
        giveUpAt: createdAt + OLD_TASK_TIMEOUT_MS,
      });
    }
  }

  /**
   * At start-up, what the log did not show this supervisor (a view restored from a
   * snapshot) is taken from the state: replacements waiting out a delay are adopted, their
   * delay counted from their creation; and, as SwarmKit's CheckTasks does, every task of a
   * slot at its newest spec version after the first counts as one of its restarts.
   */
  adopt(state: ClusterState): void {
    this.seedHistory(state);
    for (const task of state.tasks.values()) {
      if (task.desiredState !== TaskState.READY || task.replaces === undefined || this.delayed.has(task.id)) continue;
      const createdAt = Date.parse(task.createdAt);
      const old = state.tasks.get(task.replaces);
      this.delayed.set(task.id, {
        taskId: task.id,
        serviceId: task.serviceId,
        startAt: createdAt + restartPolicyOf(task.spec).delayMs,
        ...(old !== undefined && mayBeRunning(old) ? { waitFor: old.id } : {}),
        giveUpAt: createdAt + OLD_TASK_TIMEOUT_MS,
      });
    }
  }

  private seedHistory(state: ClusterState): void {
    const bySlot = new Map<string, Task[]>();
    for (const task of state.tasks.values()) {
      const key = slotKey(task);
      if (key === undefined || restartPolicyOf(task.spec).maxAttempts <= 0) continue;
      const list = bySlot.get(key);
      if (list) list.push(task);
      else bySlot.set(key, [task]);
    }
    for (const [key, tasks] of bySlot) {
      const version = Math.max(...tasks.map((task) => task.specVersion));
      const times = tasks
        .filter((task) => task.specVersion === version)
        .map((task) => Date.parse(task.createdAt))
        .sort((a, b) => a - b)
        .slice(1);
      if (times.length > 0) this.history.seed(key, version, times);
    }
  }

  removed(taskId: string): void {
    this.delayed.delete(taskId);
    this.shutForRestart.delete(taskId);
  }

  forgetService(serviceId: string): void {
    this.history.forgetService(serviceId);
    for (const [id, entry] of this.delayed) if (entry.serviceId === serviceId) this.delayed.delete(id);
  }

  /** A replacement still waiting out its delay (desired READY). */
  isDelayed(taskId: string): boolean {
    return this.delayed.has(taskId);
  }

  get waiting(): readonly DelayedStart[] {
    return [...this.delayed.values()];
  }

  // ── what it decides ────────────────────────────────────────────────────────
  /**
   * Shuts `task` down and, if its policy says so, plans its replacement. A task that is
   * itself a replacement still waiting out its delay is left alone: it is restarted
   * when that delay is over (`startDue`: if it ended, or its node can no longer run it),
   * so failures before RUNNING cannot loop fast.
   */
  restart(d: Decision, task: Task, service: Service, why: string): void {
    if (d.plan.desiredOf(task) > TaskState.RUNNING || this.delayed.has(task.id)) return;
    this.restartNow(d, task, service, why);
  }

  private restartNow(d: Decision, task: Task, service: Service, why: string): void {
    const global = isGlobal(service.spec.mode);
    const place = global ? task.nodeId : task.slot;
    const placeable = place !== undefined && (!global || d.state.nodes.has(place as string));
    if (!placeable || !shouldRestart(task, service, this.history)) {
      d.plan.setDesired(task, TaskState.SHUTDOWN, `${why}; not restarted (restart policy)`);
      return;
    }
    // Another task already fills the slot (a start-first update's new task, say): no replacement.
    if (this.slotStillFilled(d, task, service)) {
      d.plan.setDesired(task, TaskState.SHUTDOWN, `${why}; its slot is filled by another task`);
      return;
    }
    if (!d.plan.setDesired(task, TaskState.SHUTDOWN, `${RESTARTED}: ${why}`)) return;
    d.plan.create(replacementTask(d.newId(), service, global ? { nodeId: task.nodeId as string } : { slot: task.slot as number }, task.id));
  }

  private slotStillFilled(d: Decision, task: Task, service: Service): boolean {
    const live = (other: Task): boolean =>
      other.id !== task.id && isRunnable(d.plan.desiredOf(other)) && other.status.state <= TaskState.RUNNING;
    if (d.slotmates(task).some(live)) return true;
    const global = isGlobal(service.spec.mode);
    return d.plan.createdFor(service.id).some((created) => (global ? created.nodeId === task.nodeId : created.slot === task.slot));
  }

  /** Moves the replacements whose time has come to RUNNING (or restarts them, if they failed meanwhile). */
  startDue(d: Decision): void {
    for (const entry of [...this.delayed.values()]) {
      if (!this.isDue(entry, d.state, d.now)) continue;
      this.delayed.delete(entry.taskId);
      const task = d.state.tasks.get(entry.taskId);
      if (!task || d.plan.desiredOf(task) !== TaskState.READY) continue;
      const service = d.state.services.get(task.serviceId);
      if (!service) continue;
      const node = task.nodeId === undefined ? undefined : d.state.nodes.get(task.nodeId);
      if (task.status.state > TaskState.RUNNING) this.restartNow(d, task, service, `task ${task.id} ended before it was started`);
      // Its node went down, was drained or removed while it waited (and the node handling left
      // it to this moment): it is restarted elsewhere, or shut down (global), never started there.
      else if (task.nodeId !== undefined && invalidNode(node)) {
        if (isGlobal(service.spec.mode)) d.plan.setDesired(task, TaskState.SHUTDOWN, whyInvalid(task.nodeId, node));
        else this.restartNow(d, task, service, whyInvalid(task.nodeId, node));
      } else d.plan.setDesired(task, TaskState.RUNNING, 'restart delay elapsed');
    }
  }

  private isDue(entry: DelayedStart, state: ClusterState, now: number): boolean {
    if (now < entry.startAt) return false;
    if (entry.waitFor === undefined || now >= entry.giveUpAt) return true;
    const old = state.tasks.get(entry.waitFor);
    if (!old || !mayBeRunning(old)) return true;
    const node = old.nodeId === undefined ? undefined : state.nodes.get(old.nodeId);
    return node === undefined || node.status.state === 'down';
  }

  /** The next time a waiting replacement may start, after `now` (ms). */
  wakeAt(now: number | undefined): number | undefined {
    let next: number | undefined;
    for (const entry of this.delayed.values()) {
      const at = now === undefined || now < entry.startAt ? entry.startAt : entry.waitFor !== undefined ? entry.giveUpAt : entry.startAt;
      if (next === undefined || at < next) next = at;
    }
    return next;
  }
}

/** On a node and not yet stopped. */
const mayBeRunning = (task: Task): boolean => task.status.state >= TaskState.ASSIGNED && task.status.state <= TaskState.RUNNING;

/** A new task for a service at its current version. */
export const newTaskFor = (
  id: string,
  service: Service,
  place: { readonly slot: number } | { readonly nodeId: string },
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

const replacementTask = (id: string, service: Service, place: { readonly slot: number } | { readonly nodeId: string }, replaces: string): NewTask => ({
  ...newTaskFor(id, service, place, TaskState.READY),
  replaces,
});
