/**
 * The audit proof on a real broker: a topic written with signed checkpoints among its
 * records verifies; each of the five tamperings, made in a copy of it in a second topic,
 * is named at its offset. Every proof is taken on one thread and by segments on worker
 * threads: the two reports are the same.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EventLog } from '@shoal/eventlog';
import { KafkaTestTopic } from '@shoal/testing';
import { newSigningKey } from './audit-keys';
import { proveLog } from './audit-proof';
import type { ProofReport, ProveOptions } from './audit-proof';
import { TAMPERINGS, copyInto, readValues, tampered, writeSignedLog } from './audit-tampering';

const session = readFileSync(join(__dirname, '../../../test/golden/docker-session.jsonl'), 'utf8').split('\n').filter(Boolean);

/** The proof on one thread, having checked that the proof by segments on two workers reports the same. */
const prove = async (log: EventLog, options: ProveOptions): Promise<ProofReport> => {
  const inOrder = await proveLog(log, options);
  expect(await proveLog(log, { ...options, workers: 2 })).toEqual(inOrder);
  return inOrder;
};

describe('audit proof on Kafka', () => {
  const key = newSigningKey().key;
  const topics: KafkaTestTopic[] = [];
  const topic = (): KafkaTestTopic => {
    const made = new KafkaTestTopic('audit-proof-int');
    topics.push(made);
    return made;
  };
  let signed: string[];
  let untouched: ProofReport;

  beforeAll(async () => {
    const log = await topic().open();
    await writeSignedLog(log, session, { key, everyRecords: 10 });
    signed = await readValues(log);
    untouched = await prove(log, { trustedKey: key.publicKey });
  }, 120_000);
  afterAll(async () => {
    for (const made of topics) await made.close();
  });

  it('verifies the untouched topic', () => {
    expect(untouched.problems).toEqual([]);
    expect(untouched.ok).toBe(true);
    expect(untouched.checkpoints).toBeGreaterThanOrEqual(12);
    expect(untouched.signedThrough).toBe(signed.length - 2);
    expect(untouched.keys.map((use) => use.fingerprint)).toEqual([key.fingerprint]);
  });

  it('verifies an untouched copy in a second topic (offsets and bytes as they were)', async () => {
    const log = await topic().open();
    await copyInto(log, signed);
    const report = await prove(log, { trustedKey: key.publicKey, expect: untouched.end });
    expect(report.problems).toEqual([]);
    expect(report.end).toEqual(untouched.end);
  });

  const AT = 57;
  it.each(TAMPERINGS.map((how) => [how] as const))('names a %s record in a copy at the offset it was made', async (how) => {
    const log = await topic().open();
    await copyInto(log, tampered(signed, how, AT));
    const report = await prove(log, { trustedKey: key.publicKey, expect: untouched.end });
    expect(report.ok).toBe(false);
    expect(report.difference).toEqual(expect.objectContaining({ kind: how, offset: AT }));
  });
});
