/**
 * What the update supervisor's specs say: a cluster on a specification (evolve alone, the
 * spec's clock moving 10 ms a record), with agents played by hand (start, fail, stop
 * tasks), and the supervisor's proposals appended as the orchestrator would append them.
 */
import { DEFAULT_CLUSTER_SPEC, DEFAULT_UPDATE_CONFIG, TaskState } from '@shoal/contracts';
import type { EventDataMap, EventType, NewTask, ServiceSpec, Task, TaskState as State, UpdateConfig } from '@shoal/contracts';
import { superviseUpdate } from '@shoal/domain';
import type { ClusterState, Proposal, Service, UpdateStep, Verdict } from '@shoal/domain';
import { keptJoinTokens, nodeDescription, serviceSpec } from '../builders';
import { specification } from '../specification';
import type { Specification } from '../specification';

export const T0 = Date.parse('2026-01-01T00:00:00.000Z');

/** An update config: the defaults (DEFAULT_UPDATE_CONFIG) with `overrides`. */
export const config = (overrides: Partial<UpdateConfig> = {}): UpdateConfig => ({ ...DEFAULT_UPDATE_CONFIG, ...overrides });

export const image = (tag: string, base: ServiceSpec): ServiceSpec => ({
  ...base,
  task: { ...base.task, container: { ...base.task.container, image: `nginx:${tag}` } },
});

export class UpdateWorld {
  readonly spec: Specification = specification({ clock: T0, stampClock: true });
  /** Every supervisor record's verdict, in order. */
  readonly verdicts: Verdict[] = [];
  private ids = 0;
  private updateIds = 0;
  private nodes: string[] = [];

  constructor(nodes = 3) {
    this.append('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }) });
    for (let i = 1; i <= nodes; i++) this.addNode(`n${i}`);
  }

  get state(): ClusterState {
    return this.spec.state;
  }

  get now(): Date {
    return new Date(this.spec.clock);
  }

  /** Lets `ms` pass. */
  wait(ms: number): this {
    this.spec.advance(ms);
    return this;
  }

  addNode(id: string): void {
    this.append('NodeRegistered', { id, role: 'worker', description: nodeDescription(id) });
    this.append('NodeStatusChanged', { nodes: [{ id, state: 'ready' }] });
    this.nodes.push(id);
  }

  /** The node's agent stops answering: the dispatcher marks it down. */
  nodeDown(id: string): this {
    this.append('NodeStatusChanged', { nodes: [{ id, state: 'down' }] });
    return this;
  }

  /** The operator pauses the node: it keeps its tasks and takes no new ones. */
  pause(id: string): this {
    const node = this.state.nodes.get(id);
    if (!node) throw new Error(`no node ${id}`);
    this.append('NodeSpecUpdated', { id, spec: { ...node.spec, availability: 'pause' } });
    return this;
  }

  /** A service whose tasks are all up and RUNNING at version 1. */
  service(id: string, spec: ServiceSpec): this {
    this.append('ServiceCreated', { id, spec });
    const tasks: NewTask[] =
      spec.mode.kind === 'global'
        ? this.nodes.map((nodeId) => this.newTask(id, { nodeId }))
        : Array.from({ length: spec.mode.kind === 'replicated' ? spec.mode.replicas : 0 }, (_, i) => this.newTask(id, { slot: i + 1 }));
    this.append('TasksCreated', { tasks });
    this.startAll();
    return this;
  }

  /** The user updates the service (docker service update). */
  update(id: string, spec: ServiceSpec): this {
    this.append('ServiceUpdated', { id, spec });
    return this;
  }

  /** The user rolls the service back (docker service rollback). */
  rollback(id: string): this {
    const previous = this.service$(id).previousSpec;
    if (!previous) throw new Error(`service ${id} has no previous spec`);
    this.append('ServiceUpdated', { id, spec: previous, rollback: true });
    return this;
  }

  service$(id: string): Service {
    const service = this.state.services.get(id);
    if (!service) throw new Error(`no service ${id}`);
    return service;
  }

  task(id: string): Task {
    return this.spec.task(id);
  }

  tasksOf(serviceId: string): Task[] {
    return [...this.state.tasks.values()].filter((task) => task.serviceId === serviceId);
  }

  /** Tasks meant to run (desired RUNNING or READY). */
  desiredRunning(serviceId: string): Task[] {
    return this.tasksOf(serviceId).filter((task) => task.desiredState <= TaskState.RUNNING);
  }

  /** What the supervisor decides now. */
  decide(serviceId: string): UpdateStep {
    return superviseUpdate(this.state, serviceId, this.now, () => `u${++this.updateIds}`);
  }

  /** Decides and appends what it proposes, as the orchestrator; returns the decision. */
  step(serviceId: string): UpdateStep {
    const decision = this.decide(serviceId);
    for (const proposal of decision.proposals) this.propose(proposal);
    return decision;
  }

  propose(proposal: Proposal): Verdict {
    this.tick();
    const verdict = this.spec.append(
      this.spec.event(proposal.type, proposal.data as never, { by: 'orchestrator', ...(proposal.expect ? { expect: proposal.expect } : {}) }),
    );
    this.verdicts.push(verdict);
    return verdict;
  }

  /** Allocates, places and starts every task that is meant to run and has not started. */
  startAll(): this {
    for (const task of [...this.state.tasks.values()]) {
      if (task.desiredState === TaskState.RUNNING && task.status.state < TaskState.RUNNING) this.start(task.id);
    }
    return this;
  }

  /** Takes a task through allocation, scheduling and the agent to RUNNING. */
  start(id: string): this {
    this.place(id);
    this.report(id, TaskState.RUNNING);
    return this;
  }

  /** Allocates (with its service's published ports; a dynamic one gets 30000 on) and assigns a task (to its node, or round robin by slot). */
  place(id: string): this {
    const task = this.task(id);
    if (task.status.state === TaskState.NEW) {
      const ports = (this.service$(task.serviceId).spec.endpoint?.ports ?? []).map((port, i) => ({ ...port, publishedPort: port.publishedPort ?? 30_000 + i }));
      this.append('TasksAllocated', { tasks: [{ id, attachments: [], ...(ports.length > 0 ? { ports } : {}) }] });
    }
    if (this.task(id).status.state === TaskState.PENDING) {
      const nodeId = task.nodeId ?? this.nodes[((task.slot ?? 1) - 1) % this.nodes.length]!;
      this.append('TasksAssigned', { tasks: [{ id, nodeId, why: 'test' }] });
    }
    return this;
  }

  /** The task's agent reports `state`. */
  report(id: string, state: State): this {
    const task = this.task(id);
    if (task.nodeId === undefined) throw new Error(`task ${id} is not on a node`);
    this.append('TaskStatusesReported', { nodeId: task.nodeId, statuses: [{ id, state, at: this.tick() }] });
    return this;
  }

  /** Agents stop every task told to stop. */
  stopAll(): this {
    for (const task of [...this.state.tasks.values()]) {
      if (task.desiredState > TaskState.RUNNING && task.status.state <= TaskState.RUNNING && task.status.state >= TaskState.ASSIGNED) {
        this.report(task.id, TaskState.SHUTDOWN);
      }
    }
    return this;
  }

  private newTask(serviceId: string, where: { slot?: number; nodeId?: string }): NewTask {
    const service = this.service$(serviceId);
    return {
      id: `t${++this.ids}`,
      serviceId,
      ...where,
      specVersion: service.version,
      spec: service.spec.task,
      desiredState: TaskState.RUNNING,
    };
  }

  /** Each record moves the clock 10 ms; the time it now is. */
  private tick(): string {
    this.spec.advance(10);
    return this.now.toISOString();
  }

  private append<K extends EventType>(type: K, data: EventDataMap[K]): void {
    this.tick();
    this.spec.given(this.spec.event(type, data));
  }
}

export const replicated = (replicas: number, update?: Partial<UpdateConfig>, rollback?: Partial<UpdateConfig>): ServiceSpec =>
  serviceSpec('web', { kind: 'replicated', replicas }, {
    ...(update ? { update: config(update) } : {}),
    ...(rollback ? { rollback: config(rollback) } : {}),
  });

/** What the tasks of `serviceId` meant to run run, as "slot:image" (or "node:image"), sorted. */
export const runningImages = (world: UpdateWorld, serviceId = 's'): string[] =>
  world
    .desiredRunning(serviceId)
    .map((task) => `${task.slot ?? task.nodeId}:${task.spec.container.image}`)
    .sort();
