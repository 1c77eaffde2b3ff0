/**
 * The checkpoint writer. It follows the log with a view of its own, keeps the audit chain
 * and the state as every reader does, and every `everyRecords` records or `everyMs` (the
 * first reached) appends an AuditCheckpointed signed with the operator's key, covering
 * the records since the last checkpoint.
 *
 * Who writes: the process that owns the reaper. The duty needs one writer at a time (two
 * would sign overlapping spans, harmless but wasteful) and a fenced one (a stale owner's
 * checkpoint is refused like any stale record); the reaper already has both, writes little
 * of its own, and runs in every deployment, so the checkpoint duty rides on its ownership
 * instead of adding a component that every log's terms would have to know. Its records are
 * written under the reaper's term by an instance of their own.
 *
 * Rotation: given the previous key too, while the log's checkpoints are signed by that key
 * the writer signs one more with it, announcing the new key (`next`); the ones after are
 * signed by the new key. `shoal audit verify` follows the same hand-over.
 */
import { decode } from '@shoal/contracts';
import type { AuditCheckpointed } from '@shoal/contracts';
import { AuditChain, Projection, recordDigest } from '@shoal/domain';
import type { DigestAt } from '@shoal/domain';
import type { EventLog, LogRecord, Subscription } from '@shoal/eventlog';
import { EventWriter } from './event-writer';
import { checkpointSignatureHolds, signCheckpoint } from './audit-keys';
import type { SigningKey } from './audit-keys';

export const DEFAULT_CHECKPOINT_RECORDS = 5_000;
export const DEFAULT_CHECKPOINT_MS = 60_000;
/** A checkpoint carries a digest per record: this many records at most (about 240 kB of digests). */
export const MAX_CHECKPOINT_RECORDS = 20_000;

export interface CheckpointerOptions {
  readonly key: SigningKey;
  /** During a rotation: the key the log's checkpoints are signed with now. */
  readonly previousKey?: SigningKey;
  readonly everyRecords?: number;
  readonly everyMs?: number;
  /** The writer instance (its own, beside the reaper's). */
  readonly instance: string;
  readonly cluster?: string;
  /** The reaper's term while this process owns it; undefined while it does not. */
  readonly term: () => number | undefined;
  readonly now?: () => Date;
  readonly onError?: (message: string) => void;
}

/** A checkpoint as found on the log, with its position. */
export interface CheckpointAt {
  readonly offset: number;
  readonly cluster: string;
  readonly data: AuditCheckpointed;
}

/** The AuditCheckpointed record at `offset`, if the value is one (cheaply skips the rest). */
export const checkpointIn = (record: { readonly offset: number; readonly value: string }): CheckpointAt | undefined => {
  if (!record.value.includes('"AuditCheckpointed"')) return undefined;
  const decoded = decode(record.value);
  if (!decoded.ok || decoded.event.type !== 'AuditCheckpointed') return undefined;
  return { offset: record.offset, cluster: decoded.event.cluster, data: decoded.event.data };
};

export class AuditCheckpointer {
  private readonly projection = new Projection(undefined, 0, { keepRefusals: 0 });
  private readonly chain = new AuditChain();
  /** Digests of the records after the last checkpoint (the log's or this writer's own). */
  private pending: DigestAt[] = [];
  /** Whether `pending` holds a record other than a checkpoint (only those call for a new one). */
  private news = false;
  /**
   * Checkpoints sealed and not yet on the log. A standby seals too (its view is as good as
   * the owner's) and drops each once a trusted checkpoint covers it, so an owner that took
   * over after a long catch-up still signs every span, each at its own offset and state.
   */
  private outbox: { readonly cluster: string; readonly data: AuditCheckpointed }[] = [];
  /** The key the log's checkpoints are signed with now, as the last trusted one says. */
  private logKey?: string;
  private lastAt: number;
  private subscription?: Subscription;
  private timer?: NodeJS.Timeout;
  private writing?: Promise<void>;
  private readonly everyRecords: number;
  private readonly everyMs: number;
  private readonly now: () => Date;
  private writerValue?: EventWriter;
  private writtenValue = 0;

  constructor(
    private readonly log: EventLog,
    private readonly options: CheckpointerOptions,
  ) {
    this.everyRecords = Math.max(1, Math.min(options.everyRecords ?? DEFAULT_CHECKPOINT_RECORDS, MAX_CHECKPOINT_RECORDS));
    this.everyMs = options.everyMs ?? DEFAULT_CHECKPOINT_MS;
    this.now = options.now ?? (() => new Date());
    this.lastAt = this.now().getTime();
  }

  /** How many checkpoints this writer has appended. */
  get written(): number {
    return this.writtenValue;
  }

  /** Nothing to sign: every record read is covered by a checkpoint on the log, but checkpoints themselves. */
  get settled(): boolean {
    return !this.news && this.outbox.length === 0 && this.writing === undefined;
  }

  /** The offset after the last record this writer has read. */
  get position(): number {
    return this.chain.through + 1;
  }

  start(): void {
    this.subscription = this.log.follow(0, (batch) => this.observe(batch), {
      onError: (error) => this.options.onError?.(`audit checkpoints stopped: ${error.message}`),
    });
    this.timer = setInterval(() => void this.tick(), Math.min(this.everyMs, 1_000));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.subscription?.stop();
    await this.writing;
  }

  private async observe(batch: readonly LogRecord[]): Promise<void> {
    for (const record of batch) {
      if (record.offset <= this.chain.through) continue;
      this.chain.add(record.offset, record.value);
      this.projection.apply(record);
      this.pending.push({ offset: record.offset, digest: recordDigest(record.value) });
      const checkpoint = checkpointIn(record);
      if (checkpoint && this.trusted(checkpoint)) {
        const { through } = checkpoint.data;
        this.pending = this.pending.filter((entry) => entry.offset > through);
        this.outbox = this.outbox.filter((sealed) => sealed.data.through > through);
        this.news = this.pending.some((entry) => entry.offset !== record.offset);
        this.logKey = checkpoint.data.next ?? checkpoint.data.key;
        this.lastAt = this.now().getTime();
      } else this.news = true;
      if (this.pending.length >= this.everyRecords && this.news) this.seal();
    }
    await this.tick();
  }

  /** A checkpoint on the log counts only if one of this writer's keys signed it. */
  private trusted({ cluster, data }: CheckpointAt): boolean {
    const { key, previousKey } = this.options;
    const known = data.key === key.publicKey || data.key === previousKey?.publicKey || data.key === this.logKey;
    return known && checkpointSignatureHolds(cluster, data);
  }

  /** Signs the pending span now, between two records, so the chain and the state are both through its last. */
  private seal(): void {
    if (this.pending.length === 0 || this.projection.halted) return;
    const { key, previousKey } = this.options;
    const rotating = previousKey !== undefined && this.logKey === previousKey.publicKey && !this.outbox.some((sealed) => sealed.data.next !== undefined);
    const cluster = this.cluster();
    this.outbox.push({
      cluster,
      data: signCheckpoint(
        cluster,
        {
          from: this.pending[0]!.offset,
          through: this.chain.through,
          chain: this.chain.link,
          state: this.projection.hash(),
          digests: this.pending.map((entry) => entry.digest).join(''),
          ...(rotating ? { next: key.publicKey } : {}),
        },
        rotating ? previousKey : key,
      ),
    });
    this.pending = [];
    this.news = false;
    this.lastAt = this.now().getTime();
  }

  private cluster(): string {
    return this.options.cluster ?? this.projection.state.cluster?.id ?? 'default';
  }

  private async tick(): Promise<void> {
    if (this.writing) return;
    const term = this.options.term();
    if (term === undefined) return;
    if (this.news && this.now().getTime() - this.lastAt >= this.everyMs) this.seal();
    if (this.outbox.length === 0) return;
    this.writing = this.flush(term).finally(() => (this.writing = undefined));
    await this.writing;
  }

  private async flush(term: number): Promise<void> {
    // The cluster is signed: each goes out under the cluster it was sealed for (a log read before its ClusterInitialized says 'default').
    const { cluster } = this.outbox[0]!;
    const sealed = this.outbox.filter((entry) => entry.cluster === cluster);
    if (this.writerValue?.cluster !== cluster) this.writerValue = new EventWriter(this.log, cluster, 'reaper', this.options.instance, { now: this.now });
    const writer = this.writerValue;
    writer.useTerm(term);
    try {
      await writer.append(sealed.map((entry) => writer.propose('AuditCheckpointed', entry.data)));
      this.writtenValue += sealed.length;
      this.outbox = this.outbox.filter((entry) => !sealed.includes(entry));
    } catch (error) {
      this.options.onError?.(`appending an audit checkpoint: ${(error as Error).message}`);
    }
  }
}
