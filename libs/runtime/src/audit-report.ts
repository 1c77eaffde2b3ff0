/**
 * The audit report for a time span: who changed what and when, every refusal and why,
 * every node that came and went, the tasks that failed and how often, and the proof of
 * the whole log with the signing key's fingerprint. Times are the writers' clocks (`at`);
 * a record that cannot be decoded (poison) belongs to the span its neighbours place it in.
 */
import { TaskState, decode, taskStateName } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
import type { Refusal } from '@shoal/domain';
import type { EventLog } from '@shoal/eventlog';
import { proveLog } from './audit-proof';
import type { ProofReport, ProveOptions } from './audit-proof';

const CHUNK = 5_000;

export interface Change {
  readonly offset: number;
  readonly at: string;
  /** component/instance */
  readonly by: string;
  readonly type: string;
  /** The ids the record names. */
  readonly what: readonly string[];
  readonly correlation?: string;
}

export interface NodeMove {
  readonly offset: number;
  readonly at: string;
  readonly node: string;
  readonly name?: string;
  readonly change: 'registered' | 'removed' | 'ready' | 'down' | 'disconnected' | 'unknown';
  readonly message?: string;
}

export interface TaskFailures {
  readonly service: string;
  readonly serviceName?: string;
  readonly failures: number;
  readonly tasks: number;
  readonly last: { readonly offset: number; readonly at: string; readonly task: string; readonly state: string; readonly message?: string };
}

export interface AuditReport {
  readonly log: string;
  readonly from: string;
  readonly to: string;
  /** The offsets the span covers (first, last); undefined when no record falls in it. */
  readonly offsets?: { readonly first: number; readonly last: number };
  /** Changes people asked for (the API's records), applied, in order. */
  readonly changes: readonly Change[];
  /** What the control plane did on its own: records applied per component and type. */
  readonly automatic: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly refusals: readonly Refusal[];
  readonly nodes: readonly NodeMove[];
  readonly failedTasks: readonly TaskFailures[];
  readonly proof: ProofReport;
}

const PEOPLE = new Set(['api', 'cli']);

/** The ids a record names. */
const idsOf = (event: ShoalEvent): string[] => {
  const data = event.data as unknown as Record<string, unknown>;
  const ids: string[] = [];
  if (typeof data.id === 'string') ids.push(data.id);
  for (const list of ['tasks', 'nodes', 'services', 'statuses'] as const) {
    const items = data[list];
    if (Array.isArray(items)) for (const item of items) if (item && typeof (item as { id?: unknown }).id === 'string') ids.push((item as { id: string }).id);
  }
  if (ids.length === 0) ids.push(event.cluster);
  return ids;
};

export const auditReport = async (log: EventLog, span: { readonly from: Date; readonly to: Date }, prove: ProveOptions = {}): Promise<AuditReport> => {
  const from = span.from.toISOString();
  const to = span.to.toISOString();
  const inSpan = (at: string): boolean => at >= from && at <= to;
  const changes: Change[] = [];
  const automatic: Record<string, Record<string, number>> = {};
  const nodes: NodeMove[] = [];
  const failed = new Map<string, { failures: number; tasks: Set<string>; last: TaskFailures['last'] }>();
  let first: number | undefined;
  let last: number | undefined;
  let within = false;

  const projection = new Projection(undefined, 0, {
    keepRefusals: Infinity,
    onEvent: (event, verdict, state) => {
      if (!within || verdict.status === 'rejected') return;
      const by = `${event.by.component}/${event.by.instance}`;
      if (PEOPLE.has(event.by.component)) {
        changes.push({ offset: projection.position - 1, at: event.at, by, type: event.type, what: idsOf(event), ...(event.correlation ? { correlation: event.correlation } : {}) });
      } else {
        const mine = (automatic[event.by.component] ??= {});
        mine[event.type] = (mine[event.type] ?? 0) + 1;
      }
      const offset = projection.position - 1;
      switch (event.type) {
        case 'NodeRegistered':
          nodes.push({ offset, at: event.at, node: event.data.id, name: event.data.description.hostname, change: 'registered' });
          break;
        case 'NodeRemoved':
          nodes.push({ offset, at: event.at, node: event.data.id, change: 'removed' });
          break;
        case 'NodeStatusChanged':
          for (const item of event.data.nodes) {
            const name = state.nodes.get(item.id)?.description.hostname;
            nodes.push({ offset, at: event.at, node: item.id, ...(name ? { name } : {}), change: item.state, ...(item.message ? { message: item.message } : {}) });
          }
          break;
        case 'TaskStatusesReported':
          for (const status of event.data.statuses) {
            if (status.state !== TaskState.FAILED && status.state !== TaskState.REJECTED) continue;
            const service = state.tasks.get(status.id)?.serviceId ?? '(unknown)';
            const entry = failed.get(service) ?? { failures: 0, tasks: new Set<string>(), last: undefined as unknown as TaskFailures['last'] };
            entry.failures++;
            entry.tasks.add(status.id);
            entry.last = { offset, at: status.at, task: status.id, state: taskStateName(status.state), ...(status.err ?? status.message ? { message: status.err ?? status.message } : {}) };
            failed.set(service, entry);
          }
          break;
        default:
          break;
      }
    },
  });

  const end = await log.highWaterMark();
  for (let position = 0; position < end; ) {
    const batch = await log.read(position, { to: end, max: CHUNK });
    if (batch.length === 0) break;
    for (const record of batch) {
      const decoded = decode(record.value);
      // A record with no time of its own keeps the span of the one before it.
      if (decoded.ok) within = inSpan(decoded.event.at);
      else if (typeof decoded.envelope?.at === 'string') within = inSpan(decoded.envelope.at);
      if (within) {
        first ??= record.offset;
        last = record.offset;
      }
      projection.applyDecoded(record.offset, decoded);
      if (projection.halted) break;
    }
    if (projection.halted) break;
    position = batch[batch.length - 1]!.offset + 1;
  }

  const refusals = first === undefined ? [] : projection.refusals.filter((refusal) => refusal.offset >= first! && refusal.offset <= last!);
  const failedTasks = [...failed.entries()]
    .map(([service, entry]) => {
      const name = projection.state.services.get(service)?.spec.name;
      return { service, ...(name ? { serviceName: name } : {}), failures: entry.failures, tasks: entry.tasks.size, last: entry.last };
    })
    .sort((a, b) => b.failures - a.failures || a.service.localeCompare(b.service));
  return {
    log: log.description,
    from,
    to,
    ...(first !== undefined ? { offsets: { first, last: last! } } : {}),
    changes,
    automatic,
    refusals,
    nodes,
    failedTasks,
    proof: await proveLog(log, prove),
  };
};
