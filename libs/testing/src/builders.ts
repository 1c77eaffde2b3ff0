/**
 * Builders for events and the specs they carry. Deterministic: ids, seqs and the clock
 * advance by counting, so the same test builds the same records every time.
 */
import { DEFAULT_CLUSTER_SPEC, EVENT_TYPES, TaskState, encode, joinTokenDigest } from '@shoal/contracts';
import { joinTokenHash } from '@shoal/domain';
import type {
  Component,
  JoinTokens,
  SealedJoinToken,
  EventDataMap,
  EventOf,
  EventType,
  Expectations,
  NewTask,
  NodeDescription,
  ServiceMode,
  ServiceSpec,
  ShoalEvent,
} from '@shoal/contracts';

export interface EventOptions {
  readonly by?: Component;
  readonly instance?: string;
  readonly term?: number;
  readonly expect?: Expectations;
  readonly seq?: number;
  readonly at?: string;
}

export class EventBuilder {
  private readonly seqs = new Map<string, number>();
  private clock: number;
  private ids = 0;

  constructor(
    readonly cluster = 'c1',
    start = Date.parse('2026-01-01T00:00:00.000Z'),
  ) {
    this.clock = start;
  }

  /** An event of `type`, written by its first allowed writer unless told otherwise. */
  event<K extends EventType>(type: K, data: EventDataMap[K], options: EventOptions = {}): EventOf<K> {
    const component = options.by ?? DEFAULT_WRITER[type];
    const instance = options.instance ?? `${component}-1`;
    const key = `${component}/${instance}`;
    const seq = options.seq ?? (this.seqs.get(key) ?? 0) + 1;
    this.seqs.set(key, Math.max(seq, this.seqs.get(key) ?? 0));
    this.clock += 1_000;
    const event = {
      id: `e${++this.ids}`,
      type,
      v: EVENT_TYPES[type].v,
      cluster: this.cluster,
      at: options.at ?? new Date(this.clock).toISOString(),
      by: { component, instance, term: options.term ?? 0 },
      seq,
      ...(options.expect ? { expect: options.expect } : {}),
      data,
    };
    return event as unknown as EventOf<K>;
  }

  /** The ISO time the next event will carry. */
  now(): string {
    return new Date(this.clock + 1_000).toISOString();
  }
}

const DEFAULT_WRITER: { readonly [K in EventType]: Component } = {
  ClusterInitialized: 'api',
  ClusterSpecUpdated: 'api',
  JoinTokensRotated: 'api',
  OwnershipTaken: 'scheduler',
  LogLevelRaised: 'api',
  RootCaRotationStarted: 'api',
  AuditCheckpointed: 'reaper',
  ServiceCreated: 'api',
  ServiceUpdated: 'api',
  ServiceRemoved: 'api',
  ServiceEndpointsAllocated: 'allocator',
  ServiceUpdateStatusChanged: 'orchestrator',
  NetworkCreated: 'api',
  NetworkAllocated: 'allocator',
  NetworkRemoved: 'api',
  ConfigCreated: 'api',
  ConfigUpdated: 'api',
  ConfigRemoved: 'api',
  SecretCreated: 'api',
  SecretUpdated: 'api',
  SecretRemoved: 'api',
  NodeRegistered: 'dispatcher',
  NodeStatusChanged: 'dispatcher',
  NodeSpecUpdated: 'api',
  NodeRemoved: 'api',
  TasksCreated: 'orchestrator',
  TasksAllocated: 'allocator',
  TasksAllocationFailed: 'allocator',
  TasksAssigned: 'scheduler',
  TasksUnschedulable: 'scheduler',
  TaskStatusesReported: 'dispatcher',
  TaskDesiredStatesChanged: 'orchestrator',
  TasksRemoved: 'reaper',
};

export const serviceSpec = (name = 'web', mode: ServiceMode = { kind: 'replicated', replicas: 1 }, overrides: Partial<ServiceSpec> = {}): ServiceSpec => ({
  name,
  task: { container: { image: 'nginx:1.27' } },
  mode,
  ...overrides,
});

export const nodeDescription = (hostname = 'node-1', overrides: Partial<NodeDescription> = {}): NodeDescription => ({
  hostname,
  platform: { os: 'linux', architecture: 'x86_64' },
  resources: { nanoCpus: 4e9, memoryBytes: 8 * 2 ** 30 },
  engine: { version: '28.2.2' },
  ...overrides,
});

export const newTask = (id: string, serviceId: string, spec: ServiceSpec, overrides: Partial<NewTask> = {}): NewTask => ({
  id,
  serviceId,
  slot: 1,
  specVersion: 1,
  spec: spec.task,
  desiredState: TaskState.RUNNING,
  ...overrides,
});

/**
 * A join token as the log keeps it from level 5, for the pure core's specs: its real hash
 * (what the dispatcher checks) beside bytes standing for the sealed token, which the core
 * never opens (only the API, with the cluster key, does).
 */
export const keptJoinToken = (token: string): SealedJoinToken => ({ digest: joinTokenDigest(token), hash: joinTokenHash(token), sealed: Buffer.from(`sealed:${token}`).toString('base64') });

export const keptJoinTokens = (tokens: JoinTokens): { readonly worker: SealedJoinToken; readonly manager: SealedJoinToken } => ({ worker: keptJoinToken(tokens.worker), manager: keptJoinToken(tokens.manager) });

export const clusterInit = (b: EventBuilder): EventOf<'ClusterInitialized'> =>
  b.event('ClusterInitialized', {
    spec: DEFAULT_CLUSTER_SPEC,
    tokens: keptJoinTokens({ worker: 'SWMTKN-1-abc-worker', manager: 'SWMTKN-1-abc-manager' }),
  });

/** Raw log records for a list of events, at offsets 0, 1, 2, … */
export const toRecords = (events: readonly (ShoalEvent | string)[]): { offset: number; value: string }[] =>
  events.map((event, offset) => ({ offset, value: typeof event === 'string' ? event : encode(event) }));
