/**
 * Stories for a long-lived process (the API): the index on disk for the records it covers
 * (read from its copies, each checked against the digest the index took of it), and for
 * the records written since (read from the log), a tail kept in memory — the index's own state
 * restored once, then every new record ruled on and noted as the index would note it.
 * Each answer checks the index against the log first; a refused index answers nothing,
 * and the caller falls back to what it had before.
 */
import { decode } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
import type { EventLog } from '@shoal/eventlog';
import { checkStoryIndex, storyRecords } from './story-index';
import type { StoryRecord } from './story-index';
import { readRecordDigests, readShard, readShardText, readStoryState, shardOf } from './story-index-files';
import type { StoryManifest } from './story-index-files';
import { StoryPostings } from './story-postings';

const CHUNK = 5_000;

export type StoryAnswer =
  | { readonly ok: true; readonly records: readonly StoryRecord[]; readonly through: number; readonly end: number; readonly digest: string }
  | { readonly ok: false; readonly reason: string };

/** The records after an index's `through`, noted as the index notes them. */
class StoryTail {
  readonly postings = new StoryPostings();
  private catching: Promise<void> = Promise.resolve();

  constructor(
    readonly digest: string,
    private readonly projection: Projection,
  ) {}

  /** Reads up to `end`; calls are serialized. */
  catchUp(log: EventLog, end: number): Promise<void> {
    this.catching = this.catching.catch(() => undefined).then(async () => {
      while (this.projection.position < end && !this.projection.halted) {
        const batch = await log.read(this.projection.position, { to: end, max: CHUNK });
        if (batch.length === 0) break;
        for (const record of batch) {
          if (record.offset < this.projection.position) continue;
          const decoded = decode(record.value);
          const verdict = this.projection.applyDecoded(record.offset, decoded);
          if (!verdict) return;
          if (decoded.ok) this.postings.add(record.offset, decoded.event, verdict);
        }
        this.projection.position = Math.max(this.projection.position, batch[batch.length - 1]!.offset + 1);
      }
    });
    return this.catching;
  }
}

export class StoryReader {
  private tail?: Promise<StoryTail>;
  private tailDigest?: string;

  /**
   * `log` serves the story's reads (on Kafka, one whose fetches are small: STORY_FETCH_BYTES);
   * `tailLog`, the tail's, read in order (default `log`).
   */
  constructor(
    readonly dir: string,
    private readonly log: EventLog,
    private readonly tailLog: EventLog = log,
  ) {}

  async story(id: string): Promise<StoryAnswer> {
    const check = await checkStoryIndex(this.dir, this.log);
    if (!check.ok) return check;
    try {
      const { manifest, end } = check;
      const [text, digests] = await Promise.all([readShard(this.dir, manifest, shardOf(id)), readRecordDigests(this.dir, manifest)]);
      const indexed = readShardText(text);
      const tail = check.behind > 0 ? await this.tailOf(manifest) : undefined;
      if (tail) await tail.catchUp(this.tailLog, end);
      const offsets = [...indexed.touching(id), ...(tail?.postings.touching(id) ?? [])];
      const records = await storyRecords(this.log, id, offsets, (offset) => indexed.verdicts.get(offset) ?? tail?.postings.verdicts.get(offset), digests, this.dir);
      return { ok: true, records, through: manifest.through, end, digest: manifest.digest };
    } catch (error) {
      return { ok: false, reason: (error as Error).message };
    }
  }

  private tailOf(manifest: StoryManifest): Promise<StoryTail> {
    if (!this.tail || this.tailDigest !== manifest.digest) {
      this.tailDigest = manifest.digest;
      this.tail = (async () => {
        const restored = Projection.fromSnapshot(await readStoryState(this.dir, manifest), { keepRefusals: 0 });
        if (typeof restored === 'string') throw new Error(`the story index's state does not check: ${restored}`);
        return new StoryTail(manifest.digest, restored);
      })();
      this.tail.catch(() => {
        this.tail = undefined;
      });
    }
    return this.tail;
  }
}
