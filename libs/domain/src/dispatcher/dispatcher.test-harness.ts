/**
 * Test support for the dispatcher's specs (never imported by the code): the core against
 * a state built by evolve, with a clock the test moves. `tick` is what the runner does:
 * decide, stamp, apply.
 */
import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { ClusterSpec, EventDataMap, EventType, ShoalEvent } from '@shoal/contracts';
import { EventBuilder, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { evolve } from '../evolve';
import { emptyState } from '../state';
import type { ClusterState } from '../state';
import type { Verdict } from '../verdict';
import { DispatcherCore } from './dispatcher-core';
import { SessionTable } from './session-table';
import type { SessionLink } from './session-table';

export const TOKENS = { worker: `SWMTKN-1-${'a'.repeat(50)}-${'w'.repeat(25)}`, manager: `SWMTKN-1-${'a'.repeat(50)}-${'m'.repeat(25)}` };

/** A link that writes down what it is told. */
export class RecordingLink implements SessionLink {
  readonly heard: string[] = [];
  /** The task ids each assignmentsChanged named, in order. */
  readonly touched: string[] = [];
  opened(periodMs: number): void {
    this.heard.push(`opened, period ${periodMs}`);
  }
  closed(reason: string, final?: boolean): void {
    this.heard.push(`closed${final ? ' for good' : ''}: ${reason}`);
  }
  assignmentsChanged(taskIds: readonly string[]): void {
    this.heard.push('assignments');
    this.touched.push(...taskIds);
  }
  periodChanged(periodMs: number): void {
    this.heard.push(`period ${periodMs}`);
  }
}

export class DispatcherHarness {
  readonly b = new EventBuilder();
  readonly state: ClusterState = emptyState();
  readonly sessions = new SessionTable();
  readonly logged: string[] = [];
  readonly core = new DispatcherCore(this.sessions, { log: (line) => this.logged.push(line) });
  /** Every event the dispatcher proposed, with its verdict. */
  readonly proposed: { event: ShoalEvent; verdict: Verdict }[] = [];
  now = Date.parse('2026-01-01T00:00:00.000Z');

  constructor(spec: Partial<ClusterSpec> = {}) {
    this.apply('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, ...spec }, tokens: TOKENS });
    this.apply('ServiceCreated', { id: 's1', spec: serviceSpec('web', { kind: 'replicated', replicas: 3 }) });
  }

  /** Another writer's event, applied and observed. */
  apply<K extends EventType>(type: K, data: EventDataMap[K]): Verdict {
    const event = this.b.event(type, data, { at: new Date(this.now).toISOString() });
    const verdict = evolve(this.state, event);
    this.core.observe(event, verdict, this.state);
    return verdict;
  }

  /** The dispatcher becomes active. */
  takeOver(): void {
    this.core.reconcileAll(this.state);
  }

  /** The runner's tick at the harness's clock: decide, append, apply. */
  tick(): ShoalEvent[] {
    const events: ShoalEvent[] = [];
    for (const proposal of this.core.decide(this.state, new Date(this.now))) {
      const event = this.b.event(proposal.type, proposal.data as never, { by: 'dispatcher', at: new Date(this.now).toISOString() }) as ShoalEvent;
      const verdict = evolve(this.state, event);
      this.core.observe(event, verdict, this.state);
      this.proposed.push({ event, verdict });
      events.push(event);
    }
    return events;
  }

  advance(ms: number): void {
    this.now += ms;
  }

  /** Opens a session for `nodeId` and lets the dispatcher register it. */
  connect(nodeId: string, link = new RecordingLink(), sessionId = `${nodeId}-session`): RecordingLink {
    this.core.open(this.state, { nodeId, sessionId, role: 'worker', description: nodeDescription(nodeId), addr: '127.0.0.1', link }, this.now);
    this.tick();
    return link;
  }

  /** A heartbeat from the node's session at the harness's clock: the period it is asked for, undefined if refused. */
  beat(nodeId: string, sessionId = `${nodeId}-session`): number | undefined {
    return this.core.heartbeat(this.state, nodeId, sessionId, this.now);
  }

  /** A task of s1 through creation, allocation and assignment to `nodeId`; its spec uses the configs named (at /etc/<id>.conf). */
  assign(id: string, nodeId: string, slot = 1, configIds: readonly string[] = []): void {
    const configs = configIds.map((configId) => ({ configId, configName: configId, file: { name: `/etc/${configId}.conf`, uid: '0', gid: '0', mode: 0o444 } }));
    const spec = serviceSpec('web', { kind: 'replicated', replicas: 3 }, configs.length === 0 ? {} : { task: { container: { image: 'nginx:1.27', configs } } });
    this.apply('TasksCreated', { tasks: [newTask(id, 's1', spec, { slot })] });
    this.apply('TasksAllocated', { tasks: [{ id, attachments: [] }] });
    this.apply('TasksAssigned', { tasks: [{ id, nodeId, why: 'test' }] });
  }

  /** A config of the cluster (`docker config create`), its data the base64 of `text`. */
  createConfig(id: string, text: string): void {
    this.apply('ConfigCreated', { id, spec: { name: `${id}-name`, data: Buffer.from(text).toString('base64') } });
  }

  /** The task ends on its node (FAILED) and is removed from the store. */
  removeTask(nodeId: string, id: string): void {
    this.report(nodeId, id, TaskState.FAILED);
    this.tick();
    this.apply('TasksRemoved', { tasks: [{ id, reason: 'history' }] });
  }

  report(nodeId: string, id: string, state: TaskState): void {
    this.sessions.report(nodeId, [{ id, state, at: new Date(this.now).toISOString() }]);
  }

  taskState(id: string): TaskState | undefined {
    return this.state.tasks.get(id)?.status.state;
  }
}


export const typesOf = (events: readonly ShoalEvent[]): string[] => events.map((e) => e.type);
