/**
 * Update slots: what a rolling update walks over. A replicated service's tasks are
 * grouped by slot number, a global service's by node. Only live tasks are in a slot —
 * meant to run and not yet ended; a task that ended while still meant to run belongs to
 * the restart supervisor, which replaces it with the current spec, and so does a task
 * whose node is down, drained or removed (the orchestrator moves or stops it).
 */
import { TaskState, isGlobal } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState, Node, Service } from '../../state';
import type { IsDirty } from './task-dirty';

export interface UpdateSlot {
  /** The slot number (replicated) or the node id (global), as a string. */
  readonly key: string;
  readonly slot?: number;
  readonly nodeId?: string;
  /** Its live tasks, oldest first. */
  readonly tasks: readonly Task[];
}

/** Meant to run (desired RUNNING or READY) and not ended. */
export const isLive = (task: Task): boolean =>
  task.desiredState <= TaskState.RUNNING && task.status.state <= TaskState.RUNNING;

/** The key of the slot a task of this service fills, if any. */
export const slotKeyOf = (service: Service, task: Task): string | undefined =>
  isGlobal(service.spec.mode) ? task.nodeId : task.slot === undefined ? undefined : String(task.slot);

/** Every task of the service, in log order. */
export const tasksOf = (state: ClusterState, serviceId: string): Task[] => {
  const tasks: Task[] = [];
  for (const task of state.tasks.values()) if (task.serviceId === serviceId) tasks.push(task);
  return tasks;
};

/** On a node that can no longer run it: the orchestrator's node handling replaces or stops it. */
const onLostNode = (task: Task, nodes: ReadonlyMap<string, Node>): boolean => {
  if (task.nodeId === undefined) return false;
  const node = nodes.get(task.nodeId);
  return node === undefined || node.status.state === 'down' || node.spec.availability === 'drain';
};

/** The service's slots that hold at least one live task, ordered by slot number or node id. */
export const liveSlots = (service: Service, tasks: readonly Task[], nodes: ReadonlyMap<string, Node>): UpdateSlot[] => {
  const global = isGlobal(service.spec.mode);
  const groups = new Map<string, Task[]>();
  for (const task of tasks) {
    const key = slotKeyOf(service, task);
    if (key === undefined || !isLive(task) || onLostNode(task, nodes)) continue;
    // A paused node takes no new tasks: a global service's task there is left as it is.
    if (global && nodes.get(task.nodeId ?? '')?.spec.availability === 'pause') continue;
    const group = groups.get(key);
    if (group) group.push(task);
    else groups.set(key, [task]);
  }
  const slots = [...groups].map(([key, members]): UpdateSlot =>
    global ? { key, nodeId: key, tasks: members } : { key, slot: Number(key), tasks: members },
  );
  return slots.sort((a, b) =>
    global ? (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : (a.slot ?? 0) - (b.slot ?? 0),
  );
};

/** A slot needs the updater when it holds more than one task, or one that is dirty. */
export const isSlotDirty = (dirty: IsDirty, slot: UpdateSlot): boolean =>
  slot.tasks.length > 1 || (slot.tasks.length === 1 && dirty(slot.tasks[0]!));
