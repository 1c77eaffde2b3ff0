/**
 * The story index: for every task, service, node, network, config and secret, the offsets
 * of the records that touched it, so that one entity's story is answered by reading only
 * those records (from the index's copies of them, story-copies.ts, or from the log). It is
 * built by replay (from offset 0, or from the state it was last built to, then the tail),
 * kept beside the snapshots, and never trusted blindly: before it is used it is checked
 * against the log it indexes (not past its end, its first, last and newest checkpoint
 * records where they were), and every record a story reads must be the one indexed (its
 * digest) and touch the entity.
 */
import { createHash } from 'node:crypto';
import { decode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
import type { EventLog, LogRecord, SnapshotStore } from '@shoal/eventlog';
import { entityIdsOf } from './entities';
import { RecordCopiesWriter, readCopies } from './story-copies';
import { StoryPostings } from './story-postings';
import type { StoredVerdict } from './story-postings';
import {
  RECORD_DIGEST_BYTES,
  anchorsOf,
  readAllShards,
  readRecordDigests,
  readShard,
  readShardText,
  readStoryManifest,
  readStoryState,
  recordDigestBytes,
  shardOf,
  writeStoryIndex,
} from './story-index-files';
import type { StoryAnchor, StoryManifest } from './story-index-files';

const CHUNK = 5_000;

/**
 * What a log that serves a story's reads asks of each fetch (KafkaEventLog's fetchMaxBytes):
 * a story reads scattered records, and the broker always returns the first record batch
 * whole, so asking for a byte brings back the batch that holds the record and nothing after
 * it (16 MiB, as a replay asks, would be decoded for one record).
 */
export const STORY_FETCH_BYTES = 1;

export const recordDigest = (value: string): string => createHash('sha256').update(value).digest('hex').slice(0, 32);

/** The index checked against a log: usable (`behind`: records after it), or refused and why. */
export type StoryIndexCheck =
  | { readonly ok: true; readonly manifest: StoryManifest; readonly end: number; readonly behind: number }
  | { readonly ok: false; readonly reason: string; readonly missing?: boolean };

/** The record at `offset`, read alone; undefined when the log has none there. */
const recordAt = async (log: EventLog, offset: number): Promise<LogRecord | undefined> => {
  const [record] = await log.read(offset, { to: offset + 1, max: 1 });
  return record?.offset === offset ? record : undefined;
};

/** Whether the index in `dir` is one of `log`'s: read its manifest, then its anchors from the log. */
export const checkStoryIndex = async (dir: string, log: EventLog): Promise<StoryIndexCheck> => {
  let manifest: StoryManifest;
  try {
    manifest = await readStoryManifest(dir);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return { ok: false, missing, reason: missing ? `no story index in ${dir}` : (error as Error).message };
  }
  const end = await log.highWaterMark();
  if (manifest.through > end) return { ok: false, reason: `the story index covers ${manifest.through} records, the log holds ${end}: it is of another log, or the log was cut` };
  for (const anchor of anchorsOf(manifest)) {
    const record = await recordAt(log, anchor.offset);
    if (!record || recordDigest(record.value) !== anchor.digest) {
      return { ok: false, reason: `the log's record at offset ${anchor.offset} is not the one the story index was built from: the index is of another log, or the log was changed` };
    }
  }
  return { ok: true, manifest, end, behind: end - manifest.through };
};

export interface StoryBuild {
  readonly manifest: StoryManifest;
  /** `built`: from offset 0; `extended`: from the state it had, then the tail; `current`: nothing to read. */
  readonly how: 'built' | 'extended' | 'current';
  /** Records replayed for this build. */
  readonly read: number;
  /** Why an index found in the directory was not used, when one was refused. */
  readonly refused?: string;
}

export interface StoryBuildOptions {
  /** Build from offset 0 whatever the directory holds. */
  readonly fresh?: boolean;
  /** Told the position now and then during the replay. */
  readonly onProgress?: (position: number, end: number) => void;
  /**
   * On the way, a snapshot of the state at every multiple of `every` offsets into `store`
   * (one none holds yet): with them kept, the state at any point is the nearest one and at
   * most `every` records of tail (`shoal audit replay`).
   */
  readonly snapshots?: { readonly store: SnapshotStore; readonly every: number };
}

/**
 * Brings the index in `dir` up to the log's end: nothing when it is current, the tail
 * when it is behind (from the state it was built to, its hash checked), from offset 0
 * when there is none or it is refused. The same log gives the same index either way.
 */
export const buildStoryIndex = async (log: EventLog, dir: string, options: StoryBuildOptions = {}): Promise<StoryBuild> => {
  const check = options.fresh ? undefined : await checkStoryIndex(dir, log);
  if (check?.ok && check.behind === 0) return { manifest: check.manifest, how: 'current', read: 0 };
  let projection = new Projection(undefined, 0, { keepRefusals: 0 });
  let postings = new StoryPostings();
  let records = 0;
  let previous: Buffer | undefined;
  let first: StoryAnchor | undefined;
  let checkpoint: StoryAnchor | undefined;
  let refused = check && !check.ok && !check.missing ? check.reason : undefined;
  if (check?.ok) {
    const restored = Projection.fromSnapshot(await readStoryState(dir, check.manifest), { keepRefusals: 0 });
    if (typeof restored === 'string' || restored.position !== check.manifest.through) refused = `the story index's state does not check: ${typeof restored === 'string' ? restored : 'another offset'}`;
    else {
      projection = restored;
      postings = await readAllShards(dir, check.manifest);
      previous = await readRecordDigests(dir, check.manifest);
      records = check.manifest.records;
      ({ first, checkpoint } = check.manifest);
    }
  }
  const from = projection.position;
  const end = await log.highWaterMark();
  const digests = Buffer.alloc(end * RECORD_DIGEST_BYTES);
  previous?.copy(digests, 0, 0, from * RECORD_DIGEST_BYTES);
  let last: StoryAnchor | undefined = check?.ok && from > 0 ? check.manifest.last : undefined;
  const copies = await RecordCopiesWriter.open(dir, from);
  const every = options.snapshots?.every;
  const held = new Set(options.snapshots ? await options.snapshots.store.list() : []);
  while (projection.position < end && !projection.halted) {
    // Up to the next multiple of `every`, where a snapshot is due.
    const to = every ? Math.min(end, (Math.floor(projection.position / every) + 1) * every) : end;
    const batch = await log.read(projection.position, { to, max: CHUNK });
    if (batch.length === 0) break;
    for (const record of batch) {
      if (record.offset < projection.position) continue;
      const decoded = decode(record.value);
      const verdict = projection.applyDecoded(record.offset, decoded);
      if (!verdict) break; // halted: a record a newer build wrote; the index ends before it
      records++;
      const digest = recordDigestBytes(record.value);
      digest.copy(digests, record.offset * RECORD_DIGEST_BYTES);
      await copies.add(record);
      const anchor = { offset: record.offset, digest: recordDigest(record.value) };
      first ??= anchor;
      last = anchor;
      if (decoded.ok) {
        postings.add(record.offset, decoded.event, verdict);
        if (decoded.event.type === 'AuditCheckpointed') checkpoint = anchor;
      }
    }
    if (!projection.halted) projection.position = Math.max(projection.position, batch[batch.length - 1]!.offset + 1);
    if (every && options.snapshots && projection.position % every === 0 && !projection.halted && !held.has(projection.position)) {
      await options.snapshots.store.save(projection.snapshot());
      held.add(projection.position);
    }
    options.onProgress?.(projection.position, end);
  }
  await copies.close();
  const manifest = await writeStoryIndex(dir, {
    through: projection.position,
    records,
    ...(projection.state.cluster ? { cluster: projection.state.cluster.id } : {}),
    hash: projection.hash(),
    ...(first ? { first } : {}),
    ...(last ? { last } : {}),
    ...(checkpoint ? { checkpoint } : {}),
    postings,
    digests: digests.subarray(0, projection.position * RECORD_DIGEST_BYTES),
    snapshot: projection.snapshot(),
  });
  return { manifest, how: check?.ok && from > 0 ? 'extended' : 'built', read: projection.position - from, ...(refused ? { refused } : {}) };
};

/** One record of a story: where it is, what it says, and evolve's verdict on it. */
export interface StoryRecord {
  readonly record: LogRecord;
  readonly event: ShoalEvent;
  readonly verdict: StoredVerdict;
}

export const APPLIED: StoredVerdict = { status: 'applied', reasons: [], codes: [] };

/** Offsets close together (gap ≤ span) read as one range; up to `parallel` ranges at a time. */
export const readAt = async (log: EventLog, offsets: readonly number[], options: { span?: number; parallel?: number } = {}): Promise<Map<number, LogRecord>> => {
  const span = options.span ?? 16;
  const ranges: [number, number][] = [];
  for (const offset of [...new Set(offsets)].sort((a, b) => a - b)) {
    const last = ranges[ranges.length - 1];
    if (last && offset - last[1] <= span) last[1] = offset;
    else ranges.push([offset, offset]);
  }
  const found = new Map<number, LogRecord>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < ranges.length) {
      const [start, end] = ranges[next++]!;
      let from = start;
      while (from <= end) {
        const batch = await log.read(from, { to: end + 1 });
        if (batch.length === 0) break;
        for (const record of batch) found.set(record.offset, record);
        from = batch[batch.length - 1]!.offset + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.parallel ?? 16, ranges.length) }, worker));
  return found;
};

/** Where a story's records are read: the index's copies first (story-copies.ts), or each from the log. */
export type StoryReadFrom = 'copies' | 'log';

/**
 * The records `offsets` name, each checked to be the one indexed (`digests`) and to touch
 * `id`; an error naming the first that is not. With `copiesIn` (the index's directory), the
 * records are read from its copies first, each kept only when its digest is the one
 * indexed, and the rest from the log.
 */
export const storyRecords = async (
  log: EventLog,
  id: string,
  offsets: readonly number[],
  verdictAt: (offset: number) => StoredVerdict | undefined,
  /** Each indexed record's digest (8 bytes at 8 × its offset): a record read must be the one indexed. */
  digests?: Buffer,
  /** The index's directory, whose copies of the records are read first. */
  copiesIn?: string,
): Promise<StoryRecord[]> => {
  const indexed = digests ? digests.length / RECORD_DIGEST_BYTES : 0;
  const isIndexed = (offset: number, record: LogRecord): boolean =>
    digests !== undefined && offset < indexed && recordDigestBytes(record.value).equals(digests.subarray(offset * RECORD_DIGEST_BYTES, (offset + 1) * RECORD_DIGEST_BYTES));
  const found = new Map<number, LogRecord>();
  const checked = new Set<number>();
  if (copiesIn !== undefined && digests) {
    for (const [offset, record] of await readCopies(copiesIn, offsets.filter((offset) => offset < indexed))) {
      if (!isIndexed(offset, record)) continue; // not the record indexed: read from the log
      found.set(offset, record);
      checked.add(offset);
    }
  }
  for (const [offset, record] of await readAt(log, offsets.filter((offset) => !found.has(offset)))) found.set(offset, record);
  return offsets.map((offset) => {
    const record = found.get(offset);
    if (!record) throw new Error(`the story index names offset ${offset}, which the log does not hold: the index does not match the log`);
    if (digests && offset < indexed && !checked.has(offset) && !isIndexed(offset, record)) {
      throw new Error(`the log's record at offset ${offset} is not the one the story index was built from: the index is of another log, or the log was changed`);
    }
    const decoded = decode(record.value);
    if (!decoded.ok || !entityIdsOf(decoded.event).includes(id)) {
      throw new Error(`the record at offset ${offset} does not touch ${id}, though the story index says it does: the index does not match the log`);
    }
    return { record, event: decoded.event, verdict: verdictAt(offset) ?? APPLIED };
  });
};

/**
 * The story of `id` from a checked index: the offsets from its shard, each record read
 * (from the index's copies, or with `readFrom` 'log' each from the log) and checked.
 * Records after the index's `through` are not in it.
 */
export const readStory = async (dir: string, manifest: StoryManifest, log: EventLog, id: string, readFrom: StoryReadFrom = 'copies'): Promise<StoryRecord[]> => {
  const [text, digests] = await Promise.all([readShard(dir, manifest, shardOf(id)), readRecordDigests(dir, manifest)]);
  const postings = readShardText(text);
  return storyRecords(log, id, postings.touching(id), (offset) => postings.verdicts.get(offset), digests, readFrom === 'copies' ? dir : undefined);
};
