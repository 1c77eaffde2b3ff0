/**
 * Slots: where a task's history is kept. A replicated (or replicated-job) task belongs
 * to its service's slot number; a global (or global-job) task to its service's node.
 */
import type { Task } from '@shoal/contracts';

export type SlotKey = string;

export const slotKey = (task: Pick<Task, 'serviceId' | 'slot' | 'nodeId'>): SlotKey | undefined =>
  task.slot !== undefined
    ? `${task.serviceId}/${task.slot}`
    : task.nodeId !== undefined
      ? `${task.serviceId}@${task.nodeId}`
      : undefined;
