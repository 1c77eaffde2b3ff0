/**
 * The reaper as a component: it watches task creations and changes (the slots and tasks
 * that may now have something to remove) and, when asked, proposes one TasksRemoved for
 * all of them — many slots per record, as SwarmKit batches its dirty set. It keeps which
 * tasks each slot holds as they are created, so that a decision costs the slots it looks
 * at, not every task of the cluster (a million of them, at every tick, was seconds).
 */
import { TaskState } from '@shoal/contracts';
import type { ShoalEvent, Task } from '@shoal/contracts';
import type { ComponentCore, Proposal } from '../component-core';
import type { ClusterState } from '../state';
import type { Verdict } from '../verdict';
import { DEFAULT_TASK_HISTORY, reap } from './reaper';
import { slotKey } from './slots';
import type { SlotKey } from './slots';

/** Most removals in one record. */
const MAX_BATCH = 10_000;

/** Tasks (or slots) start-up learns in one step (reconcileInSteps): a millisecond or two of work. */
const LEARN_STEP = 1_000;

/** Removed tasks whose ids the slot index may still hold, past which it is built again (and past a quarter of it). */
const STALE_BEFORE_REBUILD = 10_000;

/** The tasks a slot keeps (a negative limit: its whole history). */
const retentionLimit = (state: ClusterState): number => state.cluster?.spec.orchestration.taskHistoryRetentionLimit ?? DEFAULT_TASK_HISTORY;

/** How many task ids a slot's index entry holds. */
const heldBy = (entry: string | readonly string[] | undefined): number => (entry === undefined ? 0 : typeof entry === 'string' ? 1 : entry.length);

export class ReaperCore implements ComponentCore {
  readonly component = 'reaper' as const;
  readonly idleWhileStandby = true;
  private readonly slots = new Set<SlotKey>();
  private readonly tasks = new Set<string>();
  /**
   * The ids of each slot's tasks (one id alone, or several), kept as tasks are created, so a
   * decision reads the few slots it looks at instead of grouping every task in the state.
   * A removed task's id stays until its slot is next read, or the index is built again.
   */
  private readonly bySlot = new Map<SlotKey, string | string[]>();
  private indexed = 0;
  private stale = 0;
  /** Between the steps of reconcileInSteps. */
  private learning = false;

  /** What the reaper is watching, for tests and metrics. */
  get watching(): { readonly slots: number; readonly tasks: number } {
    return { slots: this.slots.size, tasks: this.tasks.size };
  }

  observe(event: ShoalEvent, verdict: Verdict, state: ClusterState): void {
    if (verdict.status === 'rejected') return;
    switch (event.type) {
      case 'TasksCreated':
        // A slot holding no more tasks than the cluster keeps has nothing to remove: only a
        // slot its new task crowds is watched. A million tasks created in slots of their own
        // (a cluster starting) are then no decision's work at all; watched, each of their
        // slots was a few microseconds of a decision, which stops the process while it runs.
        for (const created of event.data.tasks) {
          const task = state.tasks.get(created.id);
          if (task) this.index(task);
          this.watchIfCrowded(state, created);
        }
        break;
      case 'TasksAssigned':
        // A task of no slot (a global task created before its node was named) joins its node's.
        for (const assigned of event.data.tasks) {
          const task = state.tasks.get(assigned.id);
          if (task && task.slot === undefined) this.index(task);
        }
        break;
      case 'TasksRemoved':
        this.stale += event.data.tasks.length;
        if (!this.learning && this.stale > STALE_BEFORE_REBUILD && this.stale * 4 > this.indexed) this.rebuild(state);
        break;
      case 'TaskStatusesReported':
        for (const status of event.data.statuses) if (status.state > TaskState.RUNNING) this.watchTask(state, status.id);
        break;
      case 'TaskDesiredStatesChanged':
        for (const item of event.data.tasks) if (item.desiredState > TaskState.RUNNING) this.watchTask(state, item.id);
        break;
      case 'ServiceRemoved':
        for (const task of state.tasks.values()) if (task.serviceId === event.data.id) this.tasks.add(task.id);
        break;
      case 'NodeRemoved':
        for (const task of state.tasks.values()) if (task.nodeId === event.data.id) this.tasks.add(task.id);
        break;
      case 'ClusterSpecUpdated':
        this.watchCrowdedSlots(state);
        break;
      default:
        break;
    }
  }

  /**
   * Learns the state whole: the slot index built from it, and as candidates the tasks that
   * may go for a reason of their own (told to go, their service gone) and the slots holding
   * more tasks than the cluster keeps — the only ones a decision could remove anything from.
   */
  reconcileAll(state: ClusterState): void {
    for (const _ of this.reconcileInSteps(state)) continue;
  }

  /**
   * `reconcileAll`, LEARN_STEP tasks or slots a step. Records told between steps leave it as
   * if told after: indexing a task twice is indexing it once, and the steps still to come read
   * the state as it is then (a task removed meanwhile is not reached; one already indexed stays
   * in its slot's ids as a removed one does). Removals told meanwhile do not build the index
   * again at once: the steps are building it.
   */
  *reconcileInSteps(state: ClusterState): Generator<void> {
    this.learning = true;
    try {
      this.bySlot.clear();
      this.indexed = 0;
      this.stale = 0;
      let done = 0;
      for (const task of state.tasks.values()) {
        this.index(task);
        if (task.desiredState === TaskState.REMOVE || !state.services.has(task.serviceId)) this.tasks.add(task.id);
        if (++done % LEARN_STEP === 0) yield;
      }
      // Then the crowded slots, against the limit as it is at each step (a slot that grows once passed is watched as told).
      for (const [key, entry] of this.bySlot) {
        const limit = retentionLimit(state);
        if (limit >= 0 && heldBy(entry) > limit) this.slots.add(key);
        if (++done % LEARN_STEP === 0) yield;
      }
    } finally {
      this.learning = false;
    }
  }

  decide(state: ClusterState): readonly Proposal[] {
    if (this.slots.size === 0 && this.tasks.size === 0) return [];
    const bySlot = new Map<SlotKey, Task[]>();
    for (const key of this.slots) bySlot.set(key, this.tasksOf(state, key));
    const decision = reap(state, { slots: this.slots, tasks: this.tasks }, bySlot);
    this.slots.clear();
    this.tasks.clear();
    for (const key of decision.stillDirty) this.slots.add(key);
    if (decision.remove.length === 0) return [];
    const proposals: Proposal[] = [];
    for (let i = 0; i < decision.remove.length; i += MAX_BATCH) {
      proposals.push({ type: 'TasksRemoved', data: { tasks: decision.remove.slice(i, i + MAX_BATCH) } });
    }
    return proposals;
  }

  /** The tasks of slot `key` in `state`, by the index (dropping the ids of tasks no longer there). */
  tasksOf(state: ClusterState, key: SlotKey): Task[] {
    const entry = this.bySlot.get(key);
    if (entry === undefined) return [];
    const ids = typeof entry === 'string' ? [entry] : entry;
    const tasks: Task[] = [];
    for (const id of ids) {
      const task = state.tasks.get(id);
      if (task && slotKey(task) === key) tasks.push(task);
    }
    if (tasks.length < ids.length) {
      this.indexed -= ids.length - tasks.length;
      this.stale = Math.max(0, this.stale - (ids.length - tasks.length));
      if (tasks.length === 0) this.bySlot.delete(key);
      else this.bySlot.set(key, tasks.length === 1 ? tasks[0]!.id : tasks.map((task) => task.id));
    }
    return tasks;
  }

  private index(task: Task): void {
    const key = slotKey(task);
    if (key === undefined) return;
    const entry = this.bySlot.get(key);
    if (entry === undefined) this.bySlot.set(key, task.id);
    else if (typeof entry === 'string') {
      if (entry === task.id) return;
      this.bySlot.set(key, [entry, task.id]);
    } else if (entry.includes(task.id)) return;
    else entry.push(task.id);
    this.indexed++;
  }

  private rebuild(state: ClusterState): void {
    this.bySlot.clear();
    this.indexed = 0;
    this.stale = 0;
    for (const task of state.tasks.values()) this.index(task);
  }

  /** Every slot that holds more tasks than the cluster keeps (its index may count a removed one: looked at, nothing lost). */
  private watchCrowdedSlots(state: ClusterState): void {
    const limit = retentionLimit(state);
    if (limit < 0) return;
    for (const [key, entry] of this.bySlot) if (heldBy(entry) > limit) this.slots.add(key);
  }

  /** Watches the task's slot if the index holds more of its tasks than the cluster keeps (a removed one may count: looked at, nothing lost). */
  private watchIfCrowded(state: ClusterState, task: { serviceId: string; slot?: number; nodeId?: string }): void {
    const key = slotKey(task);
    if (key === undefined) return;
    const limit = retentionLimit(state);
    if (limit >= 0 && heldBy(this.bySlot.get(key)) > limit) this.slots.add(key);
  }

  private watchSlot(task: { serviceId: string; slot?: number; nodeId?: string }): void {
    const key = slotKey(task);
    if (key !== undefined) this.slots.add(key);
  }

  private watchTask(state: ClusterState, id: string): void {
    this.tasks.add(id);
    const task = state.tasks.get(id);
    if (task) this.watchSlot(task);
  }
}
