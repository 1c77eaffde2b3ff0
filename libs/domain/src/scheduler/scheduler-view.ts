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
import { isActive } from './node-info';
import type { NodeInfo } from './node-info';
import { NodeSet } from './node-set';
import { Demands } from './scheduling-task';
import type { Demand, SchedulingTask } from './scheduling-task';

/** Nodes or tasks synced in one step of a rebuild in steps: about a millisecond's work. */
const REBUILD_STEP = 500;

export type TaskPhase = 'queued' | 'waiting' | 'placed' | 'on-node';

/**
 * A task the view keeps: one small record each, the task itself being the state's. What
 * it holds on a node is what its demand says, taken by `NodeInfo.addTask` and given back
 * by `removeTask`; a task that asks for something else leaves its node and is taken again.
 */
export class Tracked implements SchedulingTask {
  /** The node that holds what it reserves (placed or on-node); none while it holds nothing. */
  node: NodeInfo | undefined = undefined;
  /** Whether it counts towards its service on `node`. */
  active = false;

  constructor(
    public task: Task,
    public demand: Demand,
    public phase: TaskPhase,
    /** Its node was chosen at creation (global services): its failures say nothing of the node. */
    readonly preassigned: boolean,
  ) {}

  get id(): string {
    return this.task.id;
  }
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
  readonly queue = new Set<Tracked>();
  /** PENDING tasks no node would take, until something changes. */
  readonly waiting = new Set<string>();
  /** Tasks proposed for a node whose verdict has not been seen yet. */
  readonly placed = new Set<string>();
  /** A node changed or capacity was freed since the waiting tasks were last tried. */
  capacityChanged = false;
  /** Counts every change to a node, its tasks, resources or failures (a kept tree is then stale). */
  changes = 0;

  /** A rebuild in steps is under way: it queues the PENDING tasks, in the state's order. */
  private rebuilding = false;
  /** What tasks ask of nodes, those asking the same CPU and memory sharing one. */
  private readonly demands = new Demands();

  /** Starts again from the state (start-up, a new term). */
  rebuild(state: ClusterState): void {
    for (const _ of this.rebuildInSteps(state)) continue;
  }

  /**
   * `rebuild`, REBUILD_STEP nodes or tasks a step. Events synced between steps leave it as
   * if synced after: every sync brings one node or task in line with the state, and the
   * steps still to come sync the rest from the state as it is then. The queue is filled by
   * the steps alone, in the state's order (which has tasks created meanwhile at its end), so
   * that a task created between steps does not queue ahead of older ones not reached yet.
   */
  *rebuildInSteps(state: ClusterState): Generator<void> {
    this.nodes.clear();
    this.tasks.clear();
    this.queue.clear();
    this.waiting.clear();
    this.placed.clear();
    this.demands.clear();
    this.changes++;
    this.rebuilding = true;
    let done = 0;
    for (const [id, node] of state.nodes) {
      this.nodes.sync(id, node);
      if (++done % REBUILD_STEP === 0) yield;
    }
    this.nodes.rankById();
    yield;
    for (const id of state.tasks.keys()) {
      this.syncTask(state, id);
      const tracked = this.tasks.get(id);
      if (tracked?.phase === 'queued') this.queue.add(tracked);
      if (++done % REBUILD_STEP === 0) yield;
    }
    this.rebuilding = false;
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
      // On a node, the task the view last saw names that node.
      const ranOn = old.phase === 'on-node' ? old.task.nodeId : undefined;
      if (task && at !== undefined && failed(task) && !old.preassigned && ranOn !== undefined) {
        this.nodes.get(ranOn)?.taskFailed(old.task.serviceId, old.task.specVersion, at);
        this.changes++;
      }
      this.forget(old);
      return;
    }
    if (task.status.state === TaskState.PENDING) {
      if (!old) {
        const queued = new Tracked(task, this.demands.of(task, state), 'queued', task.nodeId !== undefined);
        this.tasks.set(id, queued);
        // While rebuilding, the rebuild queues each task as it reaches it: the queue keeps the state's order.
        if (!this.rebuilding) this.queue.add(queued);
        return;
      }
      if (old.phase === 'placed') {
        // The proposal was refused: give the node back and wait for a change.
        this.leaveNode(old);
        old.phase = 'waiting';
        this.waiting.add(id);
      }
      this.moveOn(old, task, state);
      return;
    }
    const info = this.nodes.get(task.nodeId as string);
    let tracked = old;
    if (tracked) {
      if (tracked.node !== undefined && tracked.node !== info) this.leaveNode(tracked);
      this.moveOn(tracked, task, state);
      tracked.phase = 'on-node';
    } else {
      tracked = new Tracked(task, this.demands.of(task, state), 'on-node', isGlobalTask(state, task));
      this.tasks.set(id, tracked);
    }
    if (info) {
      const active = isActive(task);
      if (tracked.node !== info) {
        this.hold(tracked, info);
        this.changes++;
      } else if (tracked.active !== active) {
        info.countTask(task.serviceId, active);
        tracked.active = active;
        this.changes++;
        this.capacityChanged = true;
      }
    }
    this.queue.delete(tracked);
    this.waiting.delete(id);
  }

  /** Puts a queued task on a node in the view (the proposal is on its way). */
  place(tracked: Tracked, node: NodeInfo): void {
    this.hold(tracked, node);
    this.changes++;
    tracked.phase = 'placed';
    this.placed.add(tracked.id);
  }

  /** A queued task no node would take now. */
  park(tracked: Tracked): void {
    tracked.phase = 'waiting';
    this.waiting.add(tracked.id);
  }

  /** Waiting tasks go back to the queue. */
  retryWaiting(): void {
    for (const id of this.waiting) {
      const tracked = this.tasks.get(id);
      if (tracked) {
        tracked.phase = 'queued';
        this.queue.add(tracked);
      }
    }
    this.waiting.clear();
    this.capacityChanged = false;
  }

  /** Points `tracked` at a newer version of its task; asking for something else, it leaves its node first. */
  private moveOn(tracked: Tracked, task: Task, state: ClusterState): void {
    const demand = this.demands.again(tracked, task, state);
    if (demand !== tracked.demand) this.leaveNode(tracked);
    tracked.task = task;
    tracked.demand = demand;
  }

  private hold(tracked: Tracked, node: NodeInfo): void {
    tracked.active = isActive(tracked.task);
    node.addTask(tracked, tracked.active);
    tracked.node = node;
  }

  private leaveNode(tracked: Tracked): void {
    const node = tracked.node;
    if (node === undefined) return;
    tracked.node = undefined;
    // A node removed since (and perhaps registered again) counts nothing of the task.
    if (this.nodes.get(node.id) !== node) return;
    node.removeTask(tracked, tracked.active);
    this.capacityChanged = true;
    this.changes++;
  }

  private forget(tracked: Tracked): void {
    this.leaveNode(tracked);
    const id = tracked.id;
    this.tasks.delete(id);
    this.placed.delete(id);
    this.queue.delete(tracked);
    this.waiting.delete(id);
  }
}

const isGlobalTask = (state: ClusterState, task: Task): boolean => {
  const service = state.services.get(task.serviceId);
  return service ? isGlobal(service.spec.mode) : false;
};
