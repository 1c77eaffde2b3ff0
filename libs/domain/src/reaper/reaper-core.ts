/**
 * The reaper as a component: it watches task creations and changes (the slots and tasks
 * that may now have something to remove) and, when asked, proposes one TasksRemoved for
 * all of them — many slots per record, as SwarmKit batches its dirty set.
 */
import { TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import type { ComponentCore, Proposal } from '../component-core';
import type { ClusterState } from '../state';
import type { Verdict } from '../verdict';
import { reap, tasksBySlot } from './reaper';
import { slotKey } from './slots';
import type { SlotKey } from './slots';

/** Most removals in one record. */
const MAX_BATCH = 10_000;

export class ReaperCore implements ComponentCore {
  readonly component = 'reaper' as const;
  private readonly slots = new Set<SlotKey>();
  private readonly tasks = new Set<string>();

  /** What the reaper is watching, for tests and metrics. */
  get watching(): { readonly slots: number; readonly tasks: number } {
    return { slots: this.slots.size, tasks: this.tasks.size };
  }

  observe(event: ShoalEvent, verdict: Verdict, state: ClusterState): void {
    if (verdict.status === 'rejected') return;
    switch (event.type) {
      case 'TasksCreated':
        for (const task of event.data.tasks) this.watchSlot(task);
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
        this.reconcileAll(state);
        break;
      default:
        break;
    }
  }

  reconcileAll(state: ClusterState): void {
    for (const task of state.tasks.values()) {
      this.tasks.add(task.id);
      this.watchSlot(task);
    }
  }

  decide(state: ClusterState): readonly Proposal[] {
    if (this.slots.size === 0 && this.tasks.size === 0) return [];
    const decision = reap(state, { slots: this.slots, tasks: this.tasks }, this.slots.size > 0 ? tasksBySlot(state) : new Map());
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
