/**
 * A Projection is a state being built from the log: it decodes each record, lets
 * evolve rule on it, and keeps the tally an audit asks for — how many records were
 * applied, refused or poison, and which, with their reasons. Never throws on a record.
 */
import { decode } from '@shoal/contracts';
import type { Decoded, ShoalEvent } from '@shoal/contracts';
import type { ClusterState } from './state';
import { emptyState } from './state';
import { evolve } from './evolve';
import { poisoned } from './verdict';
import type { Verdict, VerdictCode, VerdictStatus } from './verdict';
import { stateHash } from './state-hash';
import { restoreSnapshot, takeSnapshot } from './snapshot';
import type { RestoreCheck, Snapshot } from './snapshot';

/** A record that was not applied in full. */
export interface Refusal {
  readonly offset: number;
  readonly id?: string;
  readonly type?: string;
  readonly by?: string;
  readonly status: Exclude<VerdictStatus, 'applied'>;
  readonly reasons: readonly string[];
  /** The code of each reason, in the same order. */
  readonly codes: readonly VerdictCode[];
}

export interface Tally {
  applied: number;
  partial: number;
  rejected: number;
  poison: number;
  /** Records that were read at an older schema version and upcast. */
  upcast: number;
}

export interface ProjectionOptions {
  /** How many refusals to remember (oldest dropped first); Infinity for an audit. Default 1000. */
  readonly keepRefusals?: number;
  /** Told of every decoded event after evolve has ruled on it, with the state as it now is. */
  readonly onEvent?: (event: ShoalEvent, verdict: Verdict, state: ClusterState) => void;
}

/** A raw record off the log. */
export interface RawRecord {
  readonly offset: number;
  readonly value: string;
}

export class Projection {
  /** The next offset to apply. */
  position: number;
  readonly tally: Tally = { applied: 0, partial: 0, rejected: 0, poison: 0, upcast: 0 };
  readonly refusals: Refusal[] = [];
  private readonly keepRefusals: number;
  private readonly onEvent?: ProjectionOptions['onEvent'];

  constructor(
    readonly state: ClusterState = emptyState(),
    position = 0,
    options: ProjectionOptions = {},
  ) {
    this.position = position;
    this.keepRefusals = options.keepRefusals ?? 1000;
    this.onEvent = options.onEvent;
  }

  /** Starts from a snapshot, after checking it (RestoreCheck: by default its hash); the reason instead when it is unusable. */
  static fromSnapshot(snapshot: Snapshot, options: ProjectionOptions = {}, check: RestoreCheck = 'state hash'): Projection | string {
    const restored = restoreSnapshot(snapshot, check);
    return restored.ok ? new Projection(restored.state, snapshot.offset, options) : restored.reason;
  }

  /**
   * Where the projection stopped: the first record a newer build wrote (a known type at a
   * version this build does not read). Nothing from there on is applied and the position
   * stays on it, so this state is the log's state up to that record, not a guess past it.
   */
  halted?: { readonly offset: number; readonly reason: string };

  /**
   * Applies one raw record; undefined for a record before the current position (already
   * seen) and, once halted, for every record.
   */
  apply(record: RawRecord): Verdict | undefined {
    if (record.offset < this.position) return undefined;
    return this.applyDecoded(record.offset, decode(record.value));
  }

  applyDecoded(offset: number, decoded: Decoded): Verdict | undefined {
    if (this.halted) return undefined;
    if (!decoded.ok && decoded.future) {
      this.halted = { offset, reason: decoded.reason };
      this.position = offset;
      return undefined;
    }
    this.position = offset + 1;
    if (!decoded.ok) {
      const verdict = poisoned(decoded.envelope?.type ? String(decoded.envelope.type) : undefined, decoded.reason);
      this.note(offset, verdict, decoded.envelope?.id);
      return verdict;
    }
    if (decoded.upcastFrom !== undefined) this.tally.upcast++;
    const event = decoded.event;
    const verdict = evolve(this.state, event);
    this.note(offset, verdict, event.id, event.by);
    this.onEvent?.(event, verdict, this.state);
    return verdict;
  }

  applyAll(records: Iterable<RawRecord>): this {
    for (const record of records) {
      this.apply(record);
      if (this.halted) break;
    }
    return this;
  }

  hash(): string {
    return stateHash(this.state);
  }

  snapshot(): Snapshot {
    return takeSnapshot(this.state, this.position);
  }

  private note(offset: number, verdict: Verdict, id?: unknown, writer?: ShoalEvent['by']): void {
    this.tally[verdict.status]++;
    if (verdict.status === 'applied') return;
    const by = writer ? `${writer.component}/${writer.instance}@${writer.term}` : undefined;
    this.refusals.push({
      offset,
      status: verdict.status,
      reasons: verdict.reasons,
      codes: verdict.codes,
      ...(typeof id === 'string' ? { id } : {}),
      ...(verdict.type ? { type: verdict.type } : {}),
      ...(by ? { by } : {}),
    });
    if (this.refusals.length > this.keepRefusals) this.refusals.shift();
  }
}

/** Replays records from an empty state (or a snapshot's) and returns the projection. */
export const replay = (records: Iterable<RawRecord>, options: ProjectionOptions & { readonly to?: number } = {}): Projection => {
  const projection = new Projection(emptyState(), 0, options);
  for (const record of records) {
    if (options.to !== undefined && record.offset >= options.to) break;
    projection.apply(record);
    if (projection.halted) break;
  }
  return projection;
};
