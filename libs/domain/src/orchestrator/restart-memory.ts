/**
 * What the restart supervisor remembers, learned from the log alone: the restarts of each
 * slot (RestartHistory) and the replacements still waiting to start. A restart's shutdown
 * carries a reason starting with `RESTARTED`, and the TasksCreated that follows names the
 * task it `replaces`. The supervisor's decisions (restart-supervisor.ts) read it.
 */
import { TaskState } from '@shoal/contracts';
import type { CreatedTask, Task, TaskDesiredStatesChanged } from '@shoal/contracts';
import type { ClusterState } from '../state';
import { slotKey } from '../reaper/slots';
import type { SlotKey } from '../reaper/slots';
import { mayBeRunning, oldTaskGivenUpAt, replacementStartsAt } from './replacement-start';
import { RestartHistory } from './restart-history';
import { restartPolicyOf } from './restart-policy';

/** The reason a restart's shutdown starts with: its replacement follows. */
export const RESTARTED = 'restarted';

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

export class RestartMemory {
  readonly history = new RestartHistory();
  private readonly delayed = new Map<string, DelayedStart>();
  /** Tasks shut down by a restart whose replacement has not been seen yet. */
  private readonly shutForRestart = new Set<string>();
  /** While an adoption seeds the history: the state's tasks by slot, gathered so far. */
  private seeds?: Map<SlotKey, Task | Task[]>;

  desiredChanged(items: TaskDesiredStatesChanged['tasks']): void {
    for (const item of items) {
      if (item.reason?.startsWith(RESTARTED)) this.shutForRestart.add(item.id);
      if (item.desiredState >= TaskState.RUNNING) this.delayed.delete(item.id);
    }
  }

  /** After a TasksCreated applied at `at`: the restart replacements among its tasks. */
  created(items: readonly CreatedTask[], at: string, state: ClusterState): void {
    const createdAt = Date.parse(at);
    if (this.seeds) {
      for (const item of items) {
        const task = state.tasks.get(item.id);
        if (task && task.createdAt === at) gather(this.seeds, task);
      }
    }
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
      const mayStillRun = old !== undefined && mayBeRunning(old) && oldNode !== undefined && oldNode.status.state !== 'down';
      this.delayed.set(task.id, {
        taskId: task.id,
        serviceId: task.serviceId,
        startAt: replacementStartsAt(task, oldNode),
        ...(mayStillRun ? { waitFor: old.id } : {}),
        giveUpAt: oldTaskGivenUpAt(task),
      });
    }
  }

  /**
   * At start-up, what the log did not show (a view restored from a snapshot) is taken from
   * the state: replacements waiting out a delay are adopted, their delay counted from their
   * creation (where the replaced task was then is not known: the policy's delay); and, as
   * SwarmKit's CheckTasks does, every task of a slot at its newest spec version after the
   * first counts as one of its restarts.
   */
  adopt(state: ClusterState): void {
    for (const _ of this.adoptInSteps(state, Number.POSITIVE_INFINITY)) continue;
  }

  /**
   * `adopt`, `step` tasks or slots a step, records told between steps leaving it as if told
   * after. The tasks are gathered by slot, then each slot's history is seeded: a task created
   * once all were gathered is gathered as it is told (`created`); one removed once gathered
   * still counts, as it would had it been adopted at once and its removal told after (a
   * restart is not undone by its task leaving the store). A replacement adopted before the
   * task it waits for stopped still names it: `isDue` does not wait for a task that has stopped.
   */
  *adoptInSteps(state: ClusterState, step: number): Generator<void> {
    const seeds = new Map<SlotKey, Task | Task[]>();
    this.seeds = undefined;
    let done = 0;
    for (const task of state.tasks.values()) {
      gather(seeds, task);
      this.adoptDelayed(state, task);
      if (++done % step === 0) yield;
    }
    this.seeds = seeds;
    try {
      for (const [key, entry] of seeds) {
        if (Array.isArray(entry)) this.seed(key, entry);
        if (++done % step === 0) yield;
      }
    } finally {
      this.seeds = undefined;
    }
  }

  /** A replacement in the state waiting out its delay, unless the log already told of it. */
  private adoptDelayed(state: ClusterState, task: Task): void {
    if (task.desiredState !== TaskState.READY || task.replaces === undefined || this.delayed.has(task.id)) return;
    const old = state.tasks.get(task.replaces);
    this.delayed.set(task.id, {
      taskId: task.id,
      serviceId: task.serviceId,
      startAt: replacementStartsAt(task),
      ...(old !== undefined && mayBeRunning(old) ? { waitFor: old.id } : {}),
      giveUpAt: oldTaskGivenUpAt(task),
    });
  }

  /** A slot's restarts, as its tasks (two or more) tell them. */
  private seed(key: SlotKey, tasks: readonly Task[]): void {
    const version = Math.max(...tasks.map((task) => task.specVersion));
    const times = tasks
      .filter((task) => task.specVersion === version)
      .map((task) => Date.parse(task.createdAt))
      .sort((a, b) => a - b)
      .slice(1);
    if (times.length > 0) this.history.seed(key, version, times);
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

  /** The waiting replacements whose time has come at `now` (ms), no longer remembered as waiting. */
  takeDue(state: ClusterState, now: number): DelayedStart[] {
    const due: DelayedStart[] = [];
    for (const entry of [...this.delayed.values()]) {
      if (!isDue(entry, state, now)) continue;
      this.delayed.delete(entry.taskId);
      due.push(entry);
    }
    return due;
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

const isDue = (entry: DelayedStart, state: ClusterState, now: number): boolean => {
  if (now < entry.startAt) return false;
  if (entry.waitFor === undefined || now >= entry.giveUpAt) return true;
  const old = state.tasks.get(entry.waitFor);
  if (!old || !mayBeRunning(old)) return true;
  const node = old.nodeId === undefined ? undefined : state.nodes.get(old.nodeId);
  return node === undefined || node.status.state === 'down';
};

/** A task among its slot's, to seed the history from (one whose restarts never count is left out). */
const gather = (seeds: Map<SlotKey, Task | Task[]>, task: Task): void => {
  const key = slotKey(task);
  if (key === undefined || restartPolicyOf(task.spec).maxAttempts <= 0) return;
  const entry = seeds.get(key);
  if (entry === undefined) seeds.set(key, task);
  else if (Array.isArray(entry)) entry.push(task);
  else seeds.set(key, [entry, task]);
};
