/**
 * The scheduler's own view, kept up to date from the events it observes (never by walking
 * the whole state on a tick): the tasks it cares about — from PENDING until they stop
 * running — and the node set with their counts, free resources and host ports. A PENDING
 * task is queued (to be placed at the next decision), waiting (no node would take it:
 * it is tried again when nodes or capacity change) or placed (proposed, verdict awaited).
 */
import { TaskState, isGlobal } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '../state';
import { NodeSet } from './node-set';
import { rescheduled, schedulingTask } from './scheduling-task';
import type { SchedulingTask } from './scheduling-task';

export type TaskPhase = 'queued' | 'waiting' | 'placed' | 'on-node';

export interface Tracked {
  st: SchedulingTask;
  phase: TaskPhase;
  /** The node it is placed on or runs on. */
  nodeId?: string;
  /** Its node was chosen at creation (global services): its failures say nothing of the node. */
  readonly preassigned: boolean;
}

/** PENDING and meant to run, or on a node and not yet ended. */
const caresAbout = (task: Task | undefined): task is Task =>
  task !== undefined &&
  task.status.state >= TaskState.PENDING &&
  task.status.state <= TaskState.RUNNING &&
  !(task.status.state === TaskState.PENDING && task.desiredState > TaskState.RUNNING);

const failed = (task: Task): boolean => task.status.state === TaskState.FAILED || task.status.state === TaskState.REJECTED;

export class SchedulerView {
  readonly nodes = new NodeSet();
  readonly tasks = new Map<string, Tracked>();
  /** PENDING tasks to place at the next decision, in the order they arrived. */
  readonly queue = new Set<string>();
  /** PENDING tasks no node would take, until something changes. */
  readonly waiting = new Set<string>();
  /** Tasks proposed for a node whose verdict has not been seen yet. */
  readonly placed = new Set<string>();
  /** A node changed or capacity was freed since the waiting tasks were last tried. */
  capacityChanged = false;
  /** Counts every change to a node, its tasks, resources or failures (a kept tree is then stale). */
  changes = 0;

  /** Starts again from the state (start-up, a new term). */
  rebuild(state: ClusterState): void {
    this.nodes.clear();
    this.tasks.clear();
    this.queue.clear();
    this.waiting.clear();
    this.placed.clear();
    this.changes++;
    for (const [id, node] of state.nodes) this.nodes.sync(id, node);
    for (const id of state.tasks.keys()) this.syncTask(state, id);
    this.capacityChanged = false;
  }

  syncNode(state: ClusterState, id: string): void {
    this.nodes.sync(id, state.nodes.get(id));
    this.capacityChanged = true;
    this.changes++;
  }

  /**
   * Brings one task in line with the state. `at` (ms) is when the event that moved it was
   * written: a task of ours that failed there counts against its node.
   */
  syncTask(state: ClusterState, id: string, at?: number): void {
    const task = state.tasks.get(id);
    const old = this.tasks.get(id);
    this.placed.delete(id);
    if (!caresAbout(task)) {
      if (!old) return;
      if (task && at !== undefined && failed(task) && old.phase === 'on-node' && !old.preassigned && old.nodeId) {
        this.nodes.get(old.nodeId)?.taskFailed(old.st.serviceId, old.st.specVersion, at);
        this.changes++;
      }
      this.forget(old);
      return;
    }
    const st = old ? rescheduled(old.st, task, state) : schedulingTask(task, state);
    if (task.status.state === TaskState.PENDING) {
      if (old?.phase === 'placed') {
        // The proposal was refused: give the node back and wait for a change.
        this.leaveNode(old);
        old.st = st;
        old.phase = 'waiting';
        this.waiting.add(id);
      } else if (old) old.st = st;
      else {
        this.tasks.set(id, { st, phase: 'queued', preassigned: task.nodeId !== undefined });
        this.queue.add(id);
      }
      return;
    }
    const nodeId = task.nodeId as string;
    if (old?.nodeId !== undefined && old.nodeId !== nodeId) this.leaveNode(old);
    const info = this.nodes.get(nodeId);
    const known = info?.has(id) ?? false;
    if (info?.addTask(st)) {
      this.changes++;
      if (known) this.capacityChanged = true;
    }
    if (old) {
      old.st = st;
      old.phase = 'on-node';
      old.nodeId = nodeId;
    } else this.tasks.set(id, { st, phase: 'on-node', nodeId, preassigned: isGlobalTask(state, task) });
    this.queue.delete(id);
    this.waiting.delete(id);
  }

  /** Puts a queued task on a node in the view (the proposal is on its way). */
  place(tracked: Tracked, nodeId: string): void {
    this.nodes.get(nodeId)?.addTask(tracked.st);
    this.changes++;
    tracked.phase = 'placed';
    tracked.nodeId = nodeId;
    this.placed.add(tracked.st.id);
  }

  /** A queued task no node would take now. */
  park(tracked: Tracked): void {
    tracked.phase = 'waiting';
    this.waiting.add(tracked.st.id);
  }

  /** Waiting tasks go back to the queue. */
  retryWaiting(): void {
    for (const id of this.waiting) {
      const tracked = this.tasks.get(id);
      if (tracked) {
        tracked.phase = 'queued';
        this.queue.add(id);
      }
    }
    this.waiting.clear();
    this.capacityChanged = false;
  }

  private leaveNode(tracked: Tracked): void {
    if (tracked.nodeId !== undefined && this.nodes.get(tracked.nodeId)?.removeTask(tracked.st.id)) {
      this.capacityChanged = true;
      this.changes++;
    }
    delete tracked.nodeId;
  }

  private forget(tracked: Tracked): void {
    this.leaveNode(tracked);
    this.tasks.delete(tracked.st.id);
    this.placed.delete(tracked.st.id);
    this.queue.delete(tracked.st.id);
    this.waiting.delete(tracked.st.id);
  }
}

const isGlobalTask = (state: ClusterState, task: Task): boolean => {
  const service = state.services.get(task.serviceId);
  return service ? isGlobal(service.spec.mode) : false;
};
