/**
 * What orchestrator specs say: a small cluster on a specification of the orchestrator core,
 * where the other components are played in the simplest way — the allocator allocates
 * every new task, the scheduler spreads pending tasks over the ready, active nodes, and
 * each node's agent runs what is meant to run and stops what is meant to stop. Time is the
 * specification's clock, which the spec moves. Pure: no clock, no randomness.
 */
import { TaskState, isJob } from '@shoal/contracts';
import type { Component, EventDataMap, EventOf, EventType, NodeDescription, Task, TaskStatusReport, TasksAllocated, TasksAssigned } from '@shoal/contracts';
import type { ClusterState, ComponentCore, Proposal, Verdict } from '@shoal/domain';
import { specification } from '../specification';
import type { ShoalEvent } from '@shoal/contracts';
import type { Specification } from '../specification';

/** Who writes each event in the simulation when the spec does not say. */
const WRITER: { readonly [K in EventType]?: Component } = {
  TasksCreated: 'orchestrator',
  TaskDesiredStatesChanged: 'orchestrator',
  ServiceUpdateStatusChanged: 'orchestrator',
  TasksAllocated: 'allocator',
  TasksAssigned: 'scheduler',
  TaskStatusesReported: 'dispatcher',
  NodeRegistered: 'dispatcher',
  NodeStatusChanged: 'dispatcher',
  TasksRemoved: 'reaper',
};

/** A core that watches and never acts: the time no orchestrator was running. */
export const absentOrchestrator = (): ComponentCore => ({
  component: 'orchestrator',
  observe: () => undefined,
  reconcileAll: () => undefined,
  decide: () => [],
});

export const simNode = (hostname: string): NodeDescription => ({
  hostname,
  platform: { os: 'linux', architecture: 'x86_64' },
  resources: { nanoCpus: 64e9, memoryBytes: 256 * 2 ** 30 },
  engine: { version: '28.2.2' },
});

export interface SimulationOptions {
  /** Agents report job tasks COMPLETE one step after RUNNING (default true). */
  readonly completeJobs?: boolean;
  /** Starting time, ms since the epoch. */
  readonly start?: number;
  /** Agents fail these tasks as they would start them (a bad image, say). */
  readonly fails?: (task: Task) => boolean;
}

/** An orchestrator core under a specification, with the rest of the cluster played simply. */
export class Simulation {
  readonly spec: Specification;
  private readonly completeJobs: boolean;
  private readonly fails: (task: Task) => boolean;

  constructor(core: ComponentCore, options: SimulationOptions = {}) {
    this.spec = specification({ core: () => core, clock: options.start ?? Date.parse('2026-01-01T00:00:00.000Z'), stampClock: true });
    this.completeJobs = options.completeJobs ?? true;
    this.fails = options.fails ?? (() => false);
  }

  get state(): ClusterState {
    return this.spec.state;
  }

  get core(): ComponentCore {
    return this.spec.core;
  }

  /** The orchestrator is now `core` (no start-up pass: that is `takeOver`). */
  set core(core: ComponentCore) {
    this.spec.core = core;
  }

  /** Every record appended, with its verdict, in order. */
  get log(): readonly { readonly event: ShoalEvent; readonly verdict: Verdict }[] {
    return this.spec.log.map((event, i) => ({ event, verdict: this.spec.verdicts[i]! }));
  }

  now(): Date {
    return new Date(this.spec.clock);
  }

  advance(ms: number): void {
    this.spec.advance(ms);
  }

  /** Appends an event as its usual writer would, and tells the core. */
  append<K extends EventType>(type: K, data: EventDataMap[K], by: Component = WRITER[type] ?? 'api'): Verdict {
    return this.spec.happen(type, data, { by });
  }

  /** Another orchestrator takes over, seeing only the state (as from a snapshot): its start-up pass runs. */
  takeOver(core: ComponentCore): void {
    this.core = core;
    this.spec.reconcileAll();
  }

  /** The orchestrator decides once; its proposals are appended. */
  decide(): readonly Proposal[] {
    return this.spec.whenTicked().proposals;
  }

  addNode(id: string): void {
    this.append('NodeRegistered', { id, role: 'worker', description: simNode(id) });
  }

  /** The allocator: every NEW task still meant to run becomes PENDING. */
  allocate(): number {
    const tasks = simulatedAllocations(this.state);
    if (tasks.length > 0) this.append('TasksAllocated', { tasks });
    return tasks.length;
  }

  /** The scheduler: pending tasks to their node (global) or the ready, active node with fewest of the service's tasks. */
  schedule(): number {
    const assigned = simulatedAssignments(this.state);
    if (assigned.length > 0) this.append('TasksAssigned', { tasks: assigned });
    return assigned.length;
  }

  /** The agents of the ready nodes: run what is meant to run, stop what is meant to stop, finish jobs. */
  runAgents(): number {
    let count = 0;
    const reports = simulatedAgentReports(this.state, this.now().toISOString(), { completeJobs: this.completeJobs, fails: this.fails });
    for (const [nodeId, statuses] of reports) {
      this.append('TaskStatusesReported', { nodeId, statuses });
      count += statuses.length;
    }
    return count;
  }

  /** An agent reports a task's end. */
  report(id: string, state: TaskState, extra: Partial<TaskStatusReport> = {}): Verdict {
    const task = this.state.tasks.get(id);
    if (!task?.nodeId) throw new Error(`task ${id} is not on a node`);
    return this.append('TaskStatusesReported', { nodeId: task.nodeId, statuses: [{ id, state, at: this.now().toISOString(), ...extra }] });
  }

  /** One round: the orchestrator decides, then allocator, scheduler and agents act once; how much happened. */
  step(): number {
    return this.decide().length + this.allocate() + this.schedule() + this.runAgents();
  }

  /**
   * Steps until nothing more happens (at most `rounds`), moving time by `tickMs` each round;
   * when all is quiet but the core asked to be woken later, time jumps to then.
   */
  settle(rounds = 50, tickMs = 1_000): number {
    for (let i = 0; i < rounds; i++) {
      if (this.step() === 0) {
        const wake = this.core.wakeAt?.(this.state);
        if (wake === undefined || wake <= this.spec.clock) return i;
        this.spec.clock = wake;
        continue;
      }
      this.advance(tickMs);
    }
    return rounds;
  }

  // ── looking at the result ──────────────────────────────────────────────────
  tasksOf(serviceId: string): Task[] {
    return [...this.state.tasks.values()].filter((t) => t.serviceId === serviceId);
  }

  /** Tasks meant to run (desired RUNNING or before). */
  runnable(serviceId: string): Task[] {
    return this.tasksOf(serviceId).filter((t) => t.desiredState <= TaskState.RUNNING);
  }

  running(serviceId: string): Task[] {
    return this.tasksOf(serviceId).filter((t) => t.status.state === TaskState.RUNNING && t.desiredState <= TaskState.RUNNING);
  }

  /** The events the orchestrator wrote, of a type. */
  written<K extends EventType>(type: K): EventOf<K>[] {
    return this.spec.log.filter((e) => e.type === type && e.by.component === 'orchestrator').map((e) => e as EventOf<K>);
  }
}

// ── the other components, played simply (pure: from a state, what they would write) ──

/** The allocator's part: every NEW task still meant to run, allocated with no attachments. */
export const simulatedAllocations = (state: ClusterState): TasksAllocated['tasks'] =>
  [...state.tasks.values()]
    .filter((t) => t.status.state === TaskState.NEW && t.desiredState <= TaskState.RUNNING)
    .map((t) => ({ id: t.id, attachments: [] }));

/** The scheduler's part: a pending task to its own node (global) or the ready, active node with fewest of its service's tasks. */
export const simulatedAssignments = (state: ClusterState): TasksAssigned['tasks'] => {
  const ready = [...state.nodes.values()].filter((n) => n.status.state === 'ready' && n.spec.availability === 'active');
  const load = new Map<string, number>();
  const key = (serviceId: string, nodeId: string) => `${serviceId}@${nodeId}`;
  for (const t of state.tasks.values()) {
    if (t.nodeId !== undefined && t.desiredState <= TaskState.RUNNING) load.set(key(t.serviceId, t.nodeId), (load.get(key(t.serviceId, t.nodeId)) ?? 0) + 1);
  }
  const assigned: { id: string; nodeId: string; why: string }[] = [];
  for (const t of state.tasks.values()) {
    if (t.status.state !== TaskState.PENDING || t.desiredState > TaskState.RUNNING) continue;
    let node = t.nodeId;
    if (node === undefined) {
      let best: string | undefined;
      for (const n of ready) {
        if (best === undefined || (load.get(key(t.serviceId, n.id)) ?? 0) < (load.get(key(t.serviceId, best)) ?? 0)) best = n.id;
      }
      node = best;
    } else if (!ready.some((n) => n.id === node)) node = undefined;
    if (node === undefined) continue;
    load.set(key(t.serviceId, node), (load.get(key(t.serviceId, node)) ?? 0) + 1);
    assigned.push({ id: t.id, nodeId: node, why: 'simulated' });
  }
  return assigned;
};

export interface AgentBehaviour {
  /** Job tasks complete one step after RUNNING. */
  readonly completeJobs?: boolean;
  /** These tasks fail as they would start. */
  readonly fails?: (task: Task) => boolean;
}

/** The agents' part, per ready node: one step along for each task assigned there that has not ended. */
export const simulatedAgentReports = (state: ClusterState, at: string, behaviour: AgentBehaviour = {}): Map<string, TaskStatusReport[]> => {
  const byNode = new Map<string, TaskStatusReport[]>();
  for (const t of state.tasks.values()) {
    if (t.nodeId === undefined || t.status.state < TaskState.ASSIGNED || t.status.state > TaskState.RUNNING) continue;
    if (state.nodes.get(t.nodeId)?.status.state !== 'ready') continue;
    const next = agentStep(state, t, behaviour);
    if (next === undefined) continue;
    const list = byNode.get(t.nodeId) ?? [];
    list.push({ id: t.id, state: next, at });
    byNode.set(t.nodeId, list);
  }
  return byNode;
};

const agentStep = (state: ClusterState, t: Task, behaviour: AgentBehaviour): TaskState | undefined => {
  if (t.desiredState > TaskState.RUNNING) return TaskState.SHUTDOWN;
  if (t.desiredState < TaskState.RUNNING) return t.status.state < TaskState.READY ? TaskState.READY : undefined;
  if (t.status.state < TaskState.RUNNING) return behaviour.fails?.(t) ? TaskState.FAILED : TaskState.RUNNING;
  const service = state.services.get(t.serviceId);
  if ((behaviour.completeJobs ?? true) && service && isJob(service.spec.mode)) return TaskState.COMPLETE;
  return undefined;
};
