/**
 * The audit surface's answers: the log paged with verdicts, the state at any point, a
 * task's history, a verification replay and a task's explanation. Reads come from the
 * audit trail and from replays of the log, never from a component's view.
 */
import { join } from 'node:path';
import { Inject, Injectable, NotFoundException, Optional } from '@nestjs/common';
import { decode, taskStateName } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { itemApplied, toStateData } from '@shoal/domain';
import type { StateData, Tally, Verdict, VerdictCode } from '@shoal/domain';
import { EVENT_LOG, latestSnapshots } from '@shoal/eventlog';
import type { EventLog, LogRecord } from '@shoal/eventlog';
import { proveLog, replayLog, verifyLog } from '@shoal/runtime';
import type { ExpectedPoint, LiveView, VerifyReport } from '@shoal/runtime';
import { publishedKey, withPublished } from './audit-proof';
import type { AuditProof } from './audit-proof';
import { API_CONFIG, API_VIEW } from '../api.tokens';
import type { ApiConfig } from '../api.config';
import type { AuditTrail } from './audit-trail';
import { DEFAULT_PAGE } from './audit-query.dto';
import type { AuditEventsQuery, StatePoint } from './audit-query.dto';
import { badRequest } from './docker-validation';
import { entitiesOf, taskItemOf } from './entities';
import type { EntityRef } from './entities';
import { readOffsets } from './read-offsets';
import { explainTask } from './task-explain';
import { entityIdOf } from './entity-ref';
import { taskIdOf } from './task-ref';
import type { TaskExplanation } from './task-explain';
import { StorySource } from './story-source';

export const AUDIT_TRAIL = Symbol('AUDIT_TRAIL');

export interface AuditVerdict {
  readonly status: Verdict['status'];
  readonly reasons: readonly string[];
  readonly codes: readonly VerdictCode[];
}

export interface AuditRecord {
  readonly offset: number;
  readonly verdict: AuditVerdict;
  readonly id?: string;
  readonly type?: string;
  readonly v?: number;
  readonly at?: string;
  /** component/instance@term */
  readonly by?: string;
  readonly seq?: number;
  readonly correlation?: string;
  readonly causation?: string;
  readonly entities?: readonly EntityRef[];
  readonly data?: unknown;
  /** A poison record's bytes as stored (cut at 4 KiB). */
  readonly raw?: string;
}

export interface AuditPage {
  readonly from: number;
  /** Where the next page starts; null once the end of the log was reached. */
  readonly next: number | null;
  readonly highWaterMark: number;
  readonly records: readonly AuditRecord[];
}

export interface AuditState {
  /** Every record before this offset is in the state. */
  readonly position: number;
  readonly highWaterMark: number;
  readonly at?: string;
  readonly hash: string;
  readonly tally: Tally;
  readonly state: StateData;
}

export interface TaskHistoryEntry extends AuditRecord {
  /** What happened to this task in the record: its own verdict within a batch. */
  readonly outcome: 'applied' | 'refused';
  readonly item: unknown;
}

export interface TaskHistory {
  readonly task: string;
  /** The scheduler's reason for the task's placement (its last applied assignment). */
  readonly placement: string | null;
  /** The scheduler's last explanation why it could not place the task. */
  readonly unschedulable: string | null;
  readonly records: readonly TaskHistoryEntry[];
  /** Present when the story index answered: the records before `through` came from it (`digest` names it), those after from the tail. */
  readonly index?: { readonly through: number; readonly digest: string };
}

/** A record of a task's history as read: where, what, and evolve's verdict on it. */
interface ReadRecord {
  readonly record: LogRecord;
  readonly event: ShoalEvent;
  readonly verdict: Pick<Verdict, 'status' | 'reasons' | 'codes' | 'refused'>;
}

const RAW_LIMIT = 4_096;
const by = (event: ShoalEvent): string => `${event.by.component}/${event.by.instance}@${event.by.term}`;
const exposeVerdict = (verdict: Pick<Verdict, 'status' | 'reasons' | 'codes'>): AuditVerdict => ({ status: verdict.status, reasons: verdict.reasons, codes: verdict.codes });

@Injectable()
export class AuditService {
  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(AUDIT_TRAIL) private readonly trail: AuditTrail,
    @Inject(API_VIEW) private readonly view: LiveView,
    @Optional() @Inject(API_CONFIG) private readonly config?: Pick<ApiConfig, 'dataDir'>,
    @Optional() @Inject(StorySource) private readonly stories?: StorySource,
  ) {}

  async events(query: AuditEventsQuery): Promise<AuditPage> {
    const end = await this.trail.catchUp();
    const from = query.from ?? 0;
    const limit = query.limit ?? DEFAULT_PAGE;
    const records: AuditRecord[] = [];
    const keep = (record: AuditRecord): boolean =>
      (query.type === undefined || record.type === query.type) && (query.verdict === undefined || record.verdict.status === query.verdict);

    // Few records to look at: those naming the entity, or those refused, read where they are.
    const refusedOnly = query.verdict !== undefined && query.verdict !== 'applied';
    if (query.entity !== undefined || refusedOnly) {
      const candidates = query.entity !== undefined ? this.offsetsTouching(query.entity) : this.trail.refusedOffsets();
      const offsets = candidates.filter(
        (offset) => offset >= from && offset < end && (query.verdict === undefined || this.trail.verdictAt(offset).status === query.verdict),
      );
      let next: number | null = null;
      for (let i = 0; i < offsets.length && next === null; i += limit) {
        for (const record of await readOffsets(this.log, offsets.slice(i, i + limit))) {
          if (records.length === limit) {
            next = record.offset;
            break;
          }
          const described = this.describe(record);
          if (keep(described)) records.push(described);
        }
      }
      return { from, next, highWaterMark: end, records };
    }

    let position = from;
    while (position < end && records.length < limit) {
      const batch = await this.log.read(position, { to: end, max: 1_000 });
      if (batch.length === 0) break;
      for (const record of batch) {
        position = record.offset + 1;
        const described = this.describe(record);
        if (keep(described)) records.push(described);
        if (records.length === limit) break;
      }
    }
    return { from, next: position < end ? position : null, highWaterMark: end, records };
  }

  async stateAt(point: StatePoint, at?: string): Promise<AuditState> {
    const end = await this.trail.catchUp();
    let position: number;
    if ('offset' in point) {
      if (point.offset > end) throw badRequest(`at: offset ${point.offset} is past the end of the log (${end} records)`);
      position = point.offset;
    } else if ('time' in point) {
      position = this.trail.positionAt(point.time);
    } else {
      position = end;
    }
    const projection = await replayLog(this.log, { to: position, keepRefusals: 0 });
    return {
      position: projection.position,
      highWaterMark: end,
      ...(at !== undefined ? { at } : {}),
      hash: projection.hash(),
      tally: projection.tally,
      state: toStateData(projection.state),
    };
  }

  /** The records touching an entity given by id or, when no record names that, by its name (or a task's id prefix). */
  private offsetsTouching(ref: string): readonly number[] {
    const direct = this.trail.offsetsTouching(ref);
    if (direct.length > 0) return direct;
    const id = entityIdOf(this.view.state, ref);
    return id === ref ? direct : this.trail.offsetsTouching(id);
  }

  /**
   * Every record that touched a task: from the story index beside the snapshots when there
   * is one that checks against the log (reading only those records), else from the audit
   * trail, which replays the whole log first.
   */
  async taskHistory(taskRef: string): Promise<TaskHistory> {
    const taskId = taskIdOf(this.view.state, taskRef);
    const indexed = this.stories ? await this.stories.story(taskId) : undefined;
    if (indexed?.ok) {
      const manifest = { through: indexed.through, digest: indexed.digest };
      return this.historyOf(taskId, indexed.records as readonly ReadRecord[], manifest);
    }
    await this.trail.catchUp();
    const offsets = this.trail.offsetsTouching(taskId);
    if (offsets.length === 0) throw new NotFoundException({ message: `no record touched task ${taskId}` });
    const read: ReadRecord[] = [];
    for (const record of await readOffsets(this.log, offsets)) {
      const decoded = decode(record.value);
      if (decoded.ok) read.push({ record, event: decoded.event, verdict: this.trail.verdictAt(record.offset) });
    }
    return this.historyOf(taskId, read);
  }

  private historyOf(taskId: string, read: readonly ReadRecord[], index?: TaskHistory['index']): TaskHistory {
    const records: TaskHistoryEntry[] = [];
    let placement: string | null = null;
    let unschedulable: string | null = null;
    // The id may name a node or a service, whose records touch it too: it is a task's only if
    // some record lists a task by it (taskItemOf gives a record's whole data when it lists none).
    let listsTask = false;
    for (const { record, event, verdict } of read) {
      const refusedHere = !itemApplied(verdict as Verdict, taskId);
      const item = taskItemOf(event, taskId);
      if (item === undefined) continue;
      listsTask ||= item !== event.data;
      if (!refusedHere && event.type === 'TasksAssigned') placement = (item as { why: string }).why;
      if (!refusedHere && event.type === 'TasksUnschedulable') unschedulable = (item as { explain: string }).explain;
      records.push({
        ...this.describe(record, event, verdict),
        outcome: refusedHere ? 'refused' : 'applied',
        item: this.readableItem(event, item),
      });
    }
    if (!listsTask) throw new NotFoundException({ message: `no record touched task ${taskId}` });
    return { task: taskId, placement, unschedulable, records, ...(index ? { index } : {}) };
  }

  /** As `shoal audit verify`: the log replayed twice and from its middle, and every component's newest snapshot on disk + the tail. */
  async verify(): Promise<VerifyReport> {
    const snapshots = this.config ? await latestSnapshots(join(this.config.dataDir, 'snapshots')) : [];
    return verifyLog(this.log, { snapshots });
  }

  /** As `shoal audit verify`'s proof, under the key published to this API. */
  async proof(expect?: ExpectedPoint): Promise<AuditProof> {
    const key = (this.published ??= { key: publishedKey() }).key;
    const report = await proveLog(this.log, { ...(key ? { trustedKey: key } : {}), ...(expect ? { expect } : {}) });
    return withPublished(report, key);
  }

  private published?: { readonly key: string | undefined };

  explain(taskRef: string, now: Date): TaskExplanation {
    const task = this.view.state.tasks.get(taskIdOf(this.view.state, taskRef));
    if (!task) throw new NotFoundException({ message: `task ${taskRef} not found` });
    return explainTask(this.view.state, task, now);
  }

  private describe(record: LogRecord, event?: ShoalEvent, ruled?: ReadRecord['verdict']): AuditRecord {
    const decoded = event ? { ok: true as const, event } : decode(record.value);
    const verdict = exposeVerdict(ruled ?? this.trail.verdictAt(record.offset));
    if (!decoded.ok) {
      const envelope = decoded.envelope ?? {};
      return {
        offset: record.offset,
        verdict,
        ...(typeof envelope.id === 'string' ? { id: envelope.id } : {}),
        ...(typeof envelope.type === 'string' ? { type: envelope.type } : {}),
        raw: record.value.length > RAW_LIMIT ? `${record.value.slice(0, RAW_LIMIT)}…` : record.value,
      };
    }
    const e = decoded.event;
    return {
      offset: record.offset,
      verdict,
      id: e.id,
      type: e.type,
      v: e.v,
      at: e.at,
      by: by(e),
      seq: e.seq,
      ...(e.correlation ? { correlation: e.correlation } : {}),
      ...(e.causation ? { causation: e.causation } : {}),
      entities: entitiesOf(e),
      data: e.data,
    };
  }

  /** Task states as their names, so a person reads RUNNING rather than 512. */
  private readableItem(event: ShoalEvent, item: unknown): unknown {
    if (item === undefined || item === null || typeof item !== 'object') return item;
    const copy: Record<string, unknown> = { ...(item as Record<string, unknown>) };
    for (const key of ['state', 'desiredState']) {
      if (typeof copy[key] === 'number') copy[key] = taskStateName(copy[key] as never);
    }
    if (event.type === 'TasksCreated') delete copy.spec;
    return copy;
  }
}
