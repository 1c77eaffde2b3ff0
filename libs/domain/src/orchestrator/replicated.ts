/**
 * Reconciling a replicated service by slot: fewer held slots than replicas → new tasks
 * in slot numbers no held slot uses; more → the surplus slots' tasks get desired REMOVE,
 * taken from the nodes with the most of the service's tasks, tasks not running first.
 * Replacing tasks whose spec is out of date is the update supervisor's work, not this.
 */
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { Service } from '../state';
import type { DecisionContext } from './decision-context';
import { newTaskFor } from './new-task';
import { groupBy, holders, isRunnable } from './slots';
import { Wants } from './wants';
import type { PlannedView } from './wants';

export interface HeldSlot {
  readonly slot: number;
  /** The tasks that hold it. */
  readonly tasks: readonly Task[];
  /** Every task in it that is not being removed. */
  readonly all: readonly Task[];
  /** This decision already creates a task in it (a restart). */
  readonly planned: boolean;
}

export const reconcileReplicated = (ctx: DecisionContext, service: Service, replicas: number): Wants => {
  const wants = new Wants(ctx.planned);
  const held = heldSlots(ctx, wants, service);
  if (replicas > held.length) {
    const used = new Set(held.map((h) => h.slot));
    let slot = 0;
    for (let i = held.length; i < replicas; i++) {
      do slot++;
      while (used.has(slot));
      wants.create(newTaskFor(ctx.newId(), service, { slot }));
    }
  } else if (replicas < held.length) {
    for (const surplus of scaleDownOrder(held).slice(replicas)) {
      // A slot being restarted in this decision is given up whole: no replacement, and its
      // task goes to REMOVE rather than SHUTDOWN.
      if (surplus.planned) wants.withdraw(service.id, (task) => task.slot === surplus.slot);
      for (const task of surplus.all) {
        if (isRunnable(task.desiredState) || isRunnable(wants.desiredOf(task))) wants.setDesired(task, TaskState.REMOVE, `scaled down to ${replicas}`);
      }
      for (const task of surplus.tasks) wants.setDesired(task, TaskState.REMOVE, `scaled down to ${replicas}`);
    }
  }
  return wants;
};

/** The slots of a service that are held (counting those this decision fills), with what is planned (`view`). */
export const heldSlots = (ctx: DecisionContext, view: PlannedView, service: Service): HeldSlot[] => {
  const bySlot = groupBy(view, ctx.tasksOf(service.id), (task) => task.slot);
  const planned = new Set<number>();
  for (const task of view.createdFor(service.id)) if (task.slot !== undefined) planned.add(task.slot);
  const held: HeldSlot[] = [];
  for (const [slot, tasks] of bySlot) {
    const holding = holders(view, ctx.restarts.history, tasks, service);
    if (holding.length > 0 || planned.has(slot)) held.push({ slot, tasks: holding, all: tasks, planned: planned.has(slot) });
  }
  for (const slot of planned) if (!bySlot.has(slot)) held.push({ slot, tasks: [], all: [], planned: true });
  return held;
};

const isRunning = (slot: HeldSlot): boolean => !slot.planned && slot.tasks.some((task) => task.status.state === TaskState.RUNNING);

/**
 * The order in which slots are kept on scale-down (the first `replicas` stay): running
 * slots before the others, then by how many of the service's slots their node already
 * had before them — so the last ones come from the busiest nodes. Slots with several
 * tasks, or none on a node — such as one this decision is restarting — are given up first.
 */
export const scaleDownOrder = (held: readonly HeldSlot[]): HeldSlot[] => {
  const byState = [...held].sort((a, b) => {
    const ra = isRunning(a);
    if (ra !== isRunning(b)) return ra ? -1 : 1;
    return a.slot - b.slot;
  });
  const perNode = new Map<string, number>();
  const indexed = byState.map((slot) => {
    const only = slot.tasks.length === 1 ? slot.tasks[0] : undefined;
    if (slot.planned || !only || only.nodeId === undefined) return { slot, index: Number.MAX_SAFE_INTEGER };
    const count = (perNode.get(only.nodeId) ?? 0) + 1;
    perNode.set(only.nodeId, count);
    return { slot, index: count };
  });
  return indexed.sort((a, b) => a.index - b.index).map((entry) => entry.slot);
};
