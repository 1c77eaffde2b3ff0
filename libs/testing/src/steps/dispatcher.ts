/**
 * What dispatcher specs say: a cluster with one service (s1) on a clock the spec moves;
 * agents that open a session, beat and report (commands to the core, not events); tasks
 * assigned to a node, configs, and a link that writes down what the dispatcher tells it.
 */
import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { ClusterSpec, ShoalEvent } from '@shoal/contracts';
import { DispatcherCore, SessionTable } from '@shoal/domain';
import type { DispatcherCoreOptions, SessionLink } from '@shoal/domain';
import { keptJoinTokens, newTask, nodeDescription, serviceSpec } from '../builders';
import { specification } from '../specification';
import type { Given, Specification } from '../specification';

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

/**
 * A specification of the dispatcher: its own session table, a clock at 2026-01-01 that
 * stamps every event, and a cluster (with `spec` over the defaults) holding service s1.
 */
export const dispatcherSpecification = (spec: Partial<ClusterSpec> = {}, options: DispatcherCoreOptions = {}): Specification<DispatcherCore> => {
  const dispatcher = specification({
    core: () => new DispatcherCore(new SessionTable(), options),
    clock: Date.parse('2026-01-01T00:00:00.000Z'),
    stampClock: true,
  });
  dispatcher.happen('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, ...spec }, tokens: keptJoinTokens(TOKENS) });
  dispatcher.happen('ServiceCreated', { id: 's1', spec: serviceSpec('web', { kind: 'replicated', replicas: 3 }) });
  return dispatcher;
};

/** The node opens a session at the spec's clock, and the dispatcher registers it (one tick). */
export const connect = (h: Specification<DispatcherCore>, nodeId: string, link = new RecordingLink(), sessionId = `${nodeId}-session`): RecordingLink => {
  h.core.open(h.state, { nodeId, sessionId, role: 'worker', description: nodeDescription(nodeId), addr: '127.0.0.1', link }, h.clock);
  h.tick();
  return link;
};

/** A heartbeat from the node's session at the spec's clock: the period it is asked for, undefined if refused. */
export const beat = (h: Specification<DispatcherCore>, nodeId: string, sessionId = `${nodeId}-session`): number | undefined =>
  h.core.heartbeat(h.state, nodeId, sessionId, h.clock);

/** The node's agent reports a task's state to the dispatcher (not yet an event). */
export const report = (h: Specification<DispatcherCore>, nodeId: string, id: string, state: TaskState): void => {
  h.core.sessions.report(nodeId, [{ id, state, at: new Date(h.clock).toISOString() }]);
};

/** A task of s1 through creation, allocation and assignment to `nodeId`; its spec uses the configs named (at /etc/<id>.conf). */
export const assigned = (id: string, nodeId: string, slot = 1, configIds: readonly string[] = []): Given => (h): ShoalEvent[] => {
  const configs = configIds.map((configId) => ({ configId, configName: configId, file: { name: `/etc/${configId}.conf`, uid: '0', gid: '0', mode: 0o444 } }));
  const spec = serviceSpec('web', { kind: 'replicated', replicas: 3 }, configs.length === 0 ? {} : { task: { container: { image: 'nginx:1.27', configs } } });
  return [
    h.event('TasksCreated', { tasks: [newTask(id, 's1', spec, { slot })] }),
    h.event('TasksAllocated', { tasks: [{ id, attachments: [] }] }),
    h.event('TasksAssigned', { tasks: [{ id, nodeId, why: 'test' }] }),
  ];
};

/** A config of the cluster (`docker config create`), its data the base64 of `text`. */
export const configCreated = (id: string, text: string): Given => (h) =>
  h.event('ConfigCreated', { id, spec: { name: `${id}-name`, data: Buffer.from(text).toString('base64') } });

/** The task ends on its node (FAILED, one tick) and is removed from the store. */
export const removeTask = (h: Specification<DispatcherCore>, nodeId: string, id: string): void => {
  report(h, nodeId, id, TaskState.FAILED);
  h.tick();
  h.happen('TasksRemoved', { tasks: [{ id, reason: 'history' }] });
};

export const taskState = (h: Specification, id: string): TaskState | undefined => h.state.tasks.get(id)?.status.state;

export const typesOf = (events: readonly ShoalEvent[]): string[] => events.map((e) => e.type);
