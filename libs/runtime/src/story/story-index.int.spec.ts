/**
 * The story index on a real broker, over a real session's log (test/golden): the same
 * index as the embedded log's of the same records; every entity's story, from the index's
 * copies and read through a log of small fetches, is every record a scan of the topic finds
 * touching it; a copy of the topic with one record changed is refused where a story reads
 * it from the log, and told as indexed from the copies; the records written after the
 * index was built are told by a reader from the index's own state.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
import { EmbeddedEventLog, KafkaEventLog } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { KafkaTestTopic } from '@shoal/testing';
import { copyInto } from '../audit-tampering';
import { entityIdsOf } from './entities';
import { buildStoryIndex, checkStoryIndex, readStory } from './story-index';
import { StoryReader } from './story-reader';

const session = async (): Promise<string[]> => (await readFile(join(__dirname, '../../../../test/golden/docker-session.jsonl'), 'utf8')).split('\n').filter(Boolean);

/** Every entity's records with their verdicts, by a scan and a replay of the whole log. */
const scan = async (log: EventLog): Promise<Map<string, [number, string][]>> => {
  const found = new Map<string, [number, string][]>();
  const projection = new Projection(undefined, 0, { keepRefusals: 0 });
  for (const record of await log.read(0, { to: await log.highWaterMark() })) {
    const decoded = decode(record.value);
    const verdict = projection.applyDecoded(record.offset, decoded);
    if (!verdict || !decoded.ok) continue;
    for (const id of entityIdsOf(decoded.event)) found.set(id, [...(found.get(id) ?? []), [record.offset, verdict.status]]);
  }
  return found;
};

describe('the story index on Kafka', () => {
  const topics: KafkaTestTopic[] = [];
  let root: string;
  let records: string[];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'shoal-story-int-'));
    records = await session();
  });
  afterAll(async () => {
    await Promise.all(topics.map((topic) => topic.close()));
    await rm(root, { recursive: true, force: true });
  });

  const topic = (): KafkaTestTopic => {
    const made = new KafkaTestTopic('story-int');
    topics.push(made);
    return made;
  };
  /** A log on the topic that reads as a story does: small fetches. */
  const smallFetches = (on: KafkaTestTopic): Promise<KafkaEventLog> => KafkaEventLog.open({ brokers: on.brokers, topic: on.name, clientId: 'story-int-reads', fetchMaxBytes: 4_096 });

  it("tells every entity's story as a scan of the topic finds it, from the same index the embedded log's records give", async () => {
    const on = topic();
    const log = await on.open();
    // Small appends, as a cluster's components write: many record batches.
    await copyInto(log, records, 7);
    const dir = join(root, 'kafka');
    const built = await buildStoryIndex(log, dir);
    expect(built.manifest).toMatchObject({ through: records.length, records: records.length });

    const embedded = await EmbeddedEventLog.open({ dir: join(root, 'embedded-log'), sync: false });
    await copyInto(embedded, records);
    const same = await buildStoryIndex(embedded, join(root, 'embedded'));
    await embedded.close();
    expect(same.manifest.digest).toBe(built.manifest.digest);

    const reads = await smallFetches(on);
    try {
      const check = await checkStoryIndex(dir, reads);
      if (!check.ok) throw new Error(check.reason);
      const expected = await scan(log);
      expect(expected.size).toBeGreaterThan(10);
      for (const [id, told] of expected) {
        expect((await readStory(dir, check.manifest, reads, id)).map((entry) => [entry.record.offset, entry.verdict.status])).toEqual(told);
        expect((await readStory(dir, check.manifest, reads, id, 'log')).map((entry) => [entry.record.offset, entry.verdict.status])).toEqual(told);
      }
    } finally {
      await reads.close();
    }
  });

  it('refuses the index for a copy of the topic with a record changed, where a story reads it; a reader tells what came after the index', async () => {
    const original = topic();
    const log = await original.open();
    await copyInto(log, records, 7);
    const dir = join(root, 'original');
    await buildStoryIndex(log, dir);
    const expected = await scan(log);
    // The entity with the longest story, and one of its records in the middle.
    const [task, told] = [...expected.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
    expect(told.length).toBeGreaterThan(4);
    const changedAt = told[Math.floor(told.length / 2)]![0];

    const copy = topic();
    const copied = await copy.open();
    const values = [...records];
    values[changedAt] = values[changedAt]!.replace(/"at":"([^"]*)"/, (_, time: string) => `"at":"${time.replace(/\d(?=Z)/, (d) => String((Number(d) + 1) % 10))}"`);
    expect(values[changedAt]).not.toBe(records[changedAt]);
    await copyInto(copied, values, 7);
    const reads = await smallFetches(copy);
    try {
      const check = await checkStoryIndex(dir, reads);
      if (!check.ok) throw new Error(check.reason);
      await expect(readStory(dir, check.manifest, reads, task, 'log')).rejects.toThrow(`the log's record at offset ${changedAt} is not the one the story index was built from`);
      // From the index's copies, the records as the index read them from the original.
      const copied = await readStory(dir, check.manifest, reads, task);
      expect(copied.map((entry) => entry.record.value)).toEqual(told.map(([offset]) => records[offset]));
      const answer = await new StoryReader(dir, reads).story(task);
      expect(answer.ok && answer.records.map((entry) => entry.record.value)).toEqual(told.map(([offset]) => records[offset]));
    } finally {
      await reads.close();
    }

    // The original topic grows: the reader tells the tail from the index's state, with verdicts.
    await copyInto(log, records.slice(0, 3), 7);
    const grown = await scan(log);
    const reads2 = await smallFetches(original);
    try {
      const reader = new StoryReader(dir, reads2);
      for (const id of [task, ...[...grown.keys()].slice(0, 5)]) {
        const answer = await reader.story(id);
        if (!answer.ok) throw new Error(answer.reason);
        expect(answer).toMatchObject({ through: records.length, end: records.length + 3 });
        expect(answer.records.map((entry) => [entry.record.offset, entry.verdict.status])).toEqual(grown.get(id));
      }
    } finally {
      await reads2.close();
    }
  });
});
