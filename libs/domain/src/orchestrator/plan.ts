/**
 * A plan: what one decision appends, and the one place the deciders' results are merged.
 * The reconcilers and the restart supervisor return Wants, merged in the order they ran:
 * the plan answers what is planned so far (a slot being restarted is not also refilled),
 * and becomes at most one TaskDesiredStatesChanged and one TasksCreated record, the
 * changes first. The update supervisor's steps follow as their own records, less its work
 * on a slot (or node) the plan already acts on: that waits for the next decision, which
 * sees the plan applied.
 */
import type { NewTask, Task, TaskState } from '@shoal/contracts';
import type { Proposal } from '../component-core';
import type { ClusterState } from '../state';
import { slotKey } from '../reaper/slots';
import type { SlotKey } from '../reaper/slots';
import type { UpdateStep } from './update';
import { withdrawFrom } from './wants';
import type { DesiredChange, PlannedView, Wants } from './wants';

/** The slots (or nodes) and the tasks a plan's changes and new tasks act on. */
interface Footprint {
  readonly slots: ReadonlySet<SlotKey>;
  readonly tasks: ReadonlySet<string>;
}

export class Plan implements PlannedView {
  private readonly changes = new Map<string, DesiredChange>();
  private readonly created: NewTask[] = [];
  private readonly createdByService = new Map<string, NewTask[]>();
  private readonly updateSteps: Proposal[] = [];
  private footprint?: Footprint;
  /** Services this plan creates or changes tasks of, in the order they were first touched. */
  readonly services = new Set<string>();

  desiredOf(task: Pick<Task, 'id' | 'desiredState'>): TaskState {
    return this.changes.get(task.id)?.desiredState ?? task.desiredState;
  }

  createdFor(serviceId: string): readonly NewTask[] {
    return this.createdByService.get(serviceId) ?? [];
  }

  /** Desired-state changes and new tasks, the update steps' left out. */
  get size(): number {
    return this.changes.size + this.created.length;
  }

  /** A decider's wants, as if it had made each change here in turn. */
  merge(wants: Wants): void {
    this.footprint = undefined;
    for (const { serviceId, match } of wants.withdrawn) this.withdraw(serviceId, match);
    for (const [id, change] of wants.changes) this.changes.set(id, change);
    for (const task of wants.created) {
      this.created.push(task);
      const list = this.createdByService.get(task.serviceId);
      if (list) list.push(task);
      else this.createdByService.set(task.serviceId, [task]);
    }
    for (const id of wants.services) this.services.add(id);
  }

  private withdraw(serviceId: string, match: (task: NewTask) => boolean): void {
    const list = this.createdByService.get(serviceId);
    if (!list?.some(match)) return;
    this.createdByService.set(serviceId, list.filter((task) => !match(task)));
    withdrawFrom(this.created, serviceId, match);
  }

  /**
   * One service's update step, which saw the state before this plan: when the plan acts on
   * the service's tasks, what the plan already does to a slot (or node) is not done twice.
   * True when some of the step was left for the next decision.
   */
  addUpdateStep(serviceId: string, step: UpdateStep, state: ClusterState): boolean {
    if (!this.services.has(serviceId)) {
      this.updateSteps.push(...step.proposals);
      return false;
    }
    this.footprint ??= this.footprintIn(state);
    const kept = withoutPlanned(step.proposals, this.footprint, state);
    this.updateSteps.push(...kept.proposals);
    return kept.dropped;
  }

  proposals(): Proposal[] {
    const out: Proposal[] = [];
    if (this.changes.size > 0) out.push({ type: 'TaskDesiredStatesChanged', data: { tasks: [...this.changes.values()] } });
    if (this.created.length > 0) out.push({ type: 'TasksCreated', data: { tasks: [...this.created] } });
    return [...out, ...this.updateSteps];
  }

  private footprintIn(state: ClusterState): Footprint {
    const slots = new Set<SlotKey>();
    const tasks = new Set<string>();
    for (const item of this.changes.values()) {
      tasks.add(item.id);
      const task = state.tasks.get(item.id);
      const key = task && slotKey(task);
      if (key !== undefined) slots.add(key);
    }
    for (const item of this.created) {
      const key = slotKey(item);
      if (key !== undefined) slots.add(key);
    }
    return { slots, tasks };
  }
}

/**
 * An update step's proposals less its work on the slots the plan already acts on: a
 * slot's shutdowns and its new task go together, so the whole slot waits for the next
 * decision. Status changes go as they are.
 */
const withoutPlanned = (
  proposals: readonly Proposal[],
  footprint: Footprint,
  state: ClusterState,
): { readonly proposals: Proposal[]; readonly dropped: boolean } => {
  const keyOfTask = (id: string): SlotKey | undefined => {
    const task = state.tasks.get(id);
    return task && slotKey(task);
  };
  // A slot is left alone when the plan acts on it, or on any task the updater would change there.
  const blocked = new Set(footprint.slots);
  for (const proposal of proposals) {
    if (proposal.type !== 'TaskDesiredStatesChanged') continue;
    for (const item of proposal.data.tasks) {
      const key = keyOfTask(item.id);
      if (footprint.tasks.has(item.id) && key !== undefined) blocked.add(key);
    }
  }
  const planned = (id: string, key: SlotKey | undefined): boolean => footprint.tasks.has(id) || (key !== undefined && blocked.has(key));
  let dropped = false;
  const out: Proposal[] = [];
  for (const proposal of proposals) {
    if (proposal.type === 'TaskDesiredStatesChanged') {
      const tasks = proposal.data.tasks.filter((item) => !planned(item.id, keyOfTask(item.id)));
      if (tasks.length < proposal.data.tasks.length) dropped = true;
      if (tasks.length > 0) out.push({ ...proposal, data: { ...proposal.data, tasks } });
    } else if (proposal.type === 'TasksCreated') {
      const tasks = proposal.data.tasks.filter((item) => !planned(item.id, slotKey(item)));
      if (tasks.length < proposal.data.tasks.length) dropped = true;
      if (tasks.length > 0) out.push({ ...proposal, data: { ...proposal.data, tasks } });
    } else out.push(proposal);
  }
  return { proposals: out, dropped };
};
