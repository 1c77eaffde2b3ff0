/**
 * The story index on disk, beside the snapshots (`<data dir>/story-index/`):
 *
 *   index.json            the manifest: what the index covers and how to check it against
 *                         the log; renamed into place last, so a reader sees a whole index or
 *                         the one before
 *   <through>-<digest>/   one generation of the index:
 *     shard-NNN.json      the entities whose id hashes to NNN (of SHARDS), sorted by id:
 *                         [id, offsets as deltas] or [id, deltas, [[offset, verdict], …]]
 *     state.json          the state at `through`, a snapshot, to extend the index from
 *     digests.bin         8 bytes of each record's SHA-256, at 8 × its offset (zeros where
 *                         the log has none): each record a story reads is checked against it
 *   records/              copies of the records, by offset, that a story reads instead of
 *                         the log when they are the ones indexed (story-copies.ts); shared
 *                         by the generations, continued by each build
 *
 * A story reads the manifest and one shard; the shard's digest is in the manifest. The
 * same postings always give the same bytes, so the same log gives the same digest.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Snapshot } from '@shoal/domain';
import { snapshotJson } from '@shoal/eventlog';
import type { StoredVerdict } from './story-postings';
import { StoryPostings } from './story-postings';

export const STORY_INDEX_FORMAT = 1;
export const SHARDS = 256;
const MANIFEST = 'index.json';

/** A record the index was built from, by offset and the digest of its bytes. */
export interface StoryAnchor {
  readonly offset: number;
  readonly digest: string;
}

export interface StoryManifest {
  readonly format: typeof STORY_INDEX_FORMAT;
  /** Every record before this offset is indexed. */
  readonly through: number;
  /** Records read (control records aside). */
  readonly records: number;
  readonly cluster?: string;
  /** The state hash at `through`. */
  readonly hash: string;
  /** The first and the last record indexed: a log without them at those offsets is another log. */
  readonly first?: StoryAnchor;
  readonly last?: StoryAnchor;
  /** The newest signed checkpoint indexed (its record carries the chain of every record before it): a log without it is another history. */
  readonly checkpoint?: StoryAnchor;
  readonly entities: number;
  readonly postings: number;
  /** Each shard file's digest, in order. */
  readonly shards: readonly string[];
  /** The digest of digests.bin. */
  readonly recordsDigest: string;
  /** The digest of the shards' digests and the records': the index's identity. */
  readonly digest: string;
  /** The folder of this generation. */
  readonly data: string;
}

type ShardEntry = readonly [string, readonly number[]] | readonly [string, readonly number[], readonly (readonly [number, StoredVerdict])[]];

export const digestOf = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** FNV-1a over the id's UTF-16 units: which shard holds it. */
export const shardOf = (id: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SHARDS;
};

const shardName = (shard: number): string => `shard-${String(shard).padStart(3, '0')}.json`;

const deltas = (offsets: readonly number[]): number[] => offsets.map((offset, i) => (i === 0 ? offset : offset - offsets[i - 1]!));

/** The shards' texts: each entity once, in the shard its id hashes to, sorted by id. */
export const shardTexts = (postings: StoryPostings): string[] => {
  const shards: string[][] = Array.from({ length: SHARDS }, () => []);
  for (const id of postings.offsets.keys()) shards[shardOf(id)]!.push(id);
  return shards.map((ids) => {
    ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const entries = ids.map((id): ShardEntry => {
      const offsets = postings.offsets.get(id)!;
      const refused = offsets.flatMap((offset) => {
        const verdict = postings.verdicts.get(offset);
        return verdict ? [[offset, verdict] as const] : [];
      });
      return refused.length > 0 ? [id, deltas(offsets), refused] : [id, deltas(offsets)];
    });
    return JSON.stringify(entries);
  });
};

/** Reads the postings of one shard's text into `into` (every entity, its offsets and verdicts). */
export const readShardText = (text: string, into: StoryPostings = new StoryPostings()): StoryPostings => {
  for (const [id, gaps, refused] of JSON.parse(text) as ShardEntry[]) {
    let offset = 0;
    for (const gap of gaps) into.addPosting(id, (offset += gap));
    for (const [at, verdict] of refused ?? []) into.verdicts.set(at, verdict);
  }
  return into;
};

const writeFileSynced = async (path: string, pieces: Iterable<string>): Promise<void> => {
  const handle = await open(path, 'w');
  try {
    for (const piece of pieces) await handle.write(piece);
    await handle.sync();
  } finally {
    await handle.close();
  }
};

export interface StoryIndexContent {
  readonly through: number;
  readonly records: number;
  readonly cluster?: string;
  readonly hash: string;
  readonly first?: StoryAnchor;
  readonly last?: StoryAnchor;
  readonly checkpoint?: StoryAnchor;
  readonly postings: StoryPostings;
  /** 8 bytes a record by offset, from 0 to `through`. */
  readonly digests: Buffer;
  readonly snapshot: Snapshot;
}

/**
 * Writes a new generation of the index into `dir` and then its manifest, replacing the
 * one before; the generation before that is removed (a reader still on it has had the
 * whole of one write to finish).
 */
export const writeStoryIndex = async (dir: string, content: StoryIndexContent): Promise<StoryManifest> => {
  const texts = shardTexts(content.postings);
  const shards = texts.map(digestOf);
  const recordsDigest = createHash('sha256').update(content.digests).digest('hex').slice(0, 32);
  const digest = digestOf(`${shards.join('\n')}\n${recordsDigest}`);
  const data = `${String(content.through).padStart(16, '0')}-${digest.slice(0, 16)}`;
  const folder = join(dir, data);
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  for (const [shard, text] of texts.entries()) await writeFileSynced(join(folder, shardName(shard)), [text]);
  await writeFileSynced(join(folder, 'state.json'), snapshotJson(content.snapshot));
  const handle = await open(join(folder, 'digests.bin'), 'w');
  try {
    await handle.write(content.digests);
    await handle.sync();
  } finally {
    await handle.close();
  }
  const previous = await readStoryManifest(dir).catch(() => undefined);
  const manifest: StoryManifest = {
    format: STORY_INDEX_FORMAT,
    through: content.through,
    records: content.records,
    ...(content.cluster !== undefined ? { cluster: content.cluster } : {}),
    hash: content.hash,
    ...(content.first ? { first: content.first } : {}),
    ...(content.last ? { last: content.last } : {}),
    ...(content.checkpoint ? { checkpoint: content.checkpoint } : {}),
    entities: content.postings.offsets.size,
    postings: content.postings.postings,
    shards,
    recordsDigest: recordsDigest,
    digest,
    data,
  };
  const temporary = join(dir, `.${MANIFEST}.${process.pid}.tmp`);
  await writeFileSynced(temporary, [JSON.stringify(manifest)]);
  await rename(temporary, join(dir, MANIFEST));
  const keep = new Set([data, previous?.data]);
  for (const name of await readdir(dir)) {
    if (/^\d{16}-[0-9a-f]{16}$/.test(name) && !keep.has(name)) await rm(join(dir, name), { recursive: true, force: true });
  }
  return manifest;
};

/** The manifest, or an error saying why there is none to read. */
export const readStoryManifest = async (dir: string): Promise<StoryManifest> => {
  const manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as StoryManifest;
  if (manifest?.format !== STORY_INDEX_FORMAT) throw new Error(`the story index in ${dir} is of format ${String(manifest?.format)}, not ${STORY_INDEX_FORMAT}`);
  if (!Array.isArray(manifest.shards) || manifest.shards.length !== SHARDS) throw new Error(`the story index in ${dir} does not list its ${SHARDS} shards`);
  return manifest;
};

/** One shard's text, checked against the digest the manifest holds for it. */
export const readShard = async (dir: string, manifest: StoryManifest, shard: number): Promise<string> => {
  const text = await readFile(join(dir, manifest.data, shardName(shard)), 'utf8');
  if (digestOf(text) !== manifest.shards[shard]) throw new Error(`the story index's shard ${shard} is not the one its manifest names`);
  return text;
};

/** The records the index is anchored to: first, newest checkpoint, last. */
export const anchorsOf = (manifest: StoryManifest): StoryAnchor[] => [manifest.first, manifest.checkpoint, manifest.last].filter((anchor): anchor is StoryAnchor => anchor !== undefined);

/** Every shard's postings, checked, as one. */
export const readAllShards = async (dir: string, manifest: StoryManifest): Promise<StoryPostings> => {
  const postings = new StoryPostings();
  for (let shard = 0; shard < SHARDS; shard++) readShardText(await readShard(dir, manifest, shard), postings);
  return postings;
};

/** The state the index was built to (its hash is checked when it is restored). */
export const readStoryState = async (dir: string, manifest: StoryManifest): Promise<Snapshot> =>
  JSON.parse(await readFile(join(dir, manifest.data, 'state.json'), 'utf8')) as Snapshot;

/** Bytes of a record's digest kept in digests.bin. */
export const RECORD_DIGEST_BYTES = 8;

/** The first RECORD_DIGEST_BYTES of the SHA-256 of a record's bytes. */
export const recordDigestBytes = (value: string): Buffer => createHash('sha256').update(value).digest().subarray(0, RECORD_DIGEST_BYTES);

/** Every record's digest, checked against the manifest (the whole file: 8 bytes a record). */
export const readRecordDigests = async (dir: string, manifest: StoryManifest): Promise<Buffer> => {
  const bytes = await readFile(join(dir, manifest.data, 'digests.bin'));
  if (createHash('sha256').update(bytes).digest('hex').slice(0, 32) !== manifest.recordsDigest) throw new Error("the story index's record digests are not the ones its manifest names");
  return bytes;
};
