/**
 * The orchestrator's index of the tasks in the state: by service and by node, so that a
 * decision looks at one service's or one node's tasks without scanning them all. It is
 * kept from the events the view applies and learnt again from the state at start-up.
 */
import type { Task, TaskState } from '@shoal/contracts';
import type { ClusterState } from '../state';

interface TaskRef {
  readonly serviceId: string;
  nodeId?: string;
  desiredState: TaskState;
}

const addTo = (map: Map<string, Set<string>>, key: string, id: string): void => {
  const set = map.get(key);
  if (set) set.add(id);
  else map.set(key, new Set([id]));
};

const removeFrom = (map: Map<string, Set<string>>, key: string, id: string): void => {
  const set = map.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
};

export class TaskIndex {
  private readonly refs = new Map<string, TaskRef>();
  private readonly byService = new Map<string, Set<string>>();
  private readonly byNode = new Map<string, Set<string>>();

  add(task: Pick<Task, 'id' | 'serviceId' | 'nodeId' | 'desiredState'>): void {
    if (this.refs.has(task.id)) this.remove(task.id);
    // One shape for every ref, with or without a node yet (assign sets it later).
    this.refs.set(task.id, { serviceId: task.serviceId, nodeId: task.nodeId, desiredState: task.desiredState });
    addTo(this.byService, task.serviceId, task.id);
    if (task.nodeId !== undefined) addTo(this.byNode, task.nodeId, task.id);
  }

  assign(id: string, nodeId: string): void {
    const ref = this.refs.get(id);
    if (!ref || ref.nodeId === nodeId) return;
    if (ref.nodeId !== undefined) removeFrom(this.byNode, ref.nodeId, id);
    ref.nodeId = nodeId;
    addTo(this.byNode, nodeId, id);
  }

  setDesired(id: string, desiredState: TaskState): void {
    const ref = this.refs.get(id);
    if (ref) ref.desiredState = desiredState;
  }

  /** Forgets a task; what it knew of it. */
  remove(id: string): Readonly<TaskRef> | undefined {
    const ref = this.refs.get(id);
    if (!ref) return undefined;
    this.refs.delete(id);
    removeFrom(this.byService, ref.serviceId, id);
    if (ref.nodeId !== undefined) removeFrom(this.byNode, ref.nodeId, id);
    return ref;
  }

  tasksOf(serviceId: string, state: ClusterState): Task[] {
    const out: Task[] = [];
    for (const id of this.byService.get(serviceId) ?? []) {
      const task = state.tasks.get(id);
      if (task) out.push(task);
    }
    return out;
  }

  taskIdsOnNode(nodeId: string): readonly string[] {
    return [...(this.byNode.get(nodeId) ?? [])];
  }

  serviceIds(): readonly string[] {
    return [...this.byService.keys()];
  }

  get size(): number {
    return this.refs.size;
  }

  has(id: string): boolean {
    return this.refs.has(id);
  }

  /** Forgets every task: start-up learns them again from the state, a task at a time. */
  clear(): void {
    this.refs.clear();
    this.byService.clear();
    this.byNode.clear();
  }
}
