/**
 * The audit proof on the embedded log: a log written with signed checkpoints verifies,
 * each of the five tamperings of a copy is named at its offset, a cut tail is caught
 * against the end a previous verify reported, and a key rotation is followed. Every proof
 * is taken on one thread and by segments on worker threads: the two reports are the same.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from '@shoal/contracts';
import { AuditChain, recordDigest, replay } from '@shoal/domain';
import { openEmbeddedTestLog } from '@shoal/testing';
import type { EmbeddedTestLog } from '@shoal/testing';
import type { EventLog } from '@shoal/eventlog';
import { newSigningKey, signCheckpoint } from './audit-keys';
import type { SigningKey } from './audit-keys';
import { proveLog } from './audit-proof';
import type { ProofReport, ProveOptions } from './audit-proof';
import { copyInto, readValues, tampered, writeSignedLog } from './audit-tampering';
import type { Tampering } from './audit-tampering';

const session = readFileSync(join(__dirname, '../../../test/golden/docker-session.jsonl'), 'utf8').split('\n').filter(Boolean);

/** The proof on one thread, having checked that the proof by segments on two workers reports the same. */
const prove = async (log: EventLog, options: ProveOptions): Promise<ProofReport> => {
  const inOrder = await proveLog(log, options);
  expect(await proveLog(log, { ...options, workers: 2 })).toEqual(inOrder);
  return inOrder;
};

/** A checkpoint record of `values` (the log from offset 0) covering `from`..`through`, signed by `key`; `state` instead of the replay's. */
const checkpointOf = (values: readonly string[], from: number, through: number, key: SigningKey, state?: string): string => {
  const covered = values.slice(0, through + 1);
  const chain = new AuditChain();
  covered.forEach((value, offset) => chain.add(offset, value));
  const projection = replay(covered.map((value, offset) => ({ offset, value })));
  const cluster = projection.state.cluster?.id ?? 'default';
  const data = signCheckpoint(cluster, { from, through, chain: chain.link, state: state ?? projection.hash(), digests: covered.slice(from).map(recordDigest).join('') }, key);
  const by = { component: 'reaper', instance: 'reaper-audit-test', term: 1 } as const;
  return encode({ id: `checkpoint-${from}-${through}`, type: 'AuditCheckpointed', v: 1, cluster, at: '2026-01-01T00:00:00.000Z', by, seq: 1, data });
};

describe('audit proof on the embedded log', () => {
  const key = newSigningKey().key;
  const opened: EmbeddedTestLog[] = [];
  const open = async (): Promise<EmbeddedTestLog> => {
    const log = await openEmbeddedTestLog('shoal-audit-proof-');
    opened.push(log);
    return log;
  };
  let signed: string[];
  let untouched: ProofReport;

  beforeAll(async () => {
    const { log } = await open();
    await writeSignedLog(log, session, { key, everyRecords: 10 });
    signed = await readValues(log);
    untouched = await prove(log, { trustedKey: key.publicKey });
  });
  afterAll(async () => {
    for (const log of opened) await log.close();
  });

  it('verifies the untouched log: every checkpoint signed by the key, chain and state hashes as signed', () => {
    expect(untouched.problems).toEqual([]);
    expect(untouched.ok).toBe(true);
    expect(untouched.checkpoints).toBeGreaterThanOrEqual(12);
    expect(untouched.records).toBe(signed.length);
    // Only the last checkpoint itself is left unsigned.
    expect(untouched.signedThrough).toBe(signed.length - 2);
    expect(untouched.unsigned).toBe(1);
    expect(untouched.keys).toEqual([expect.objectContaining({ fingerprint: key.fingerprint, trust: 'given' })]);
  });

  it('leaves the state hash as it was: checkpoints change no state', () => {
    const values = (list: readonly string[]) => list.map((value, offset) => ({ offset, value }));
    const withCheckpoints = replay(values(signed));
    expect(withCheckpoints.hash()).toBe(replay(values(session)).hash());
    expect(signed.length - session.length).toBe(untouched.checkpoints);
  });

  const AT = 40;
  it.each<[Tampering, number]>([
    ['changed', AT],
    ['removed', AT],
    ['inserted', AT],
    ['reordered', AT],
  ])('names a %s record at offset %i', async (how, offset) => {
    const { log } = await open();
    await copyInto(log, tampered(signed, how, AT));
    const report = await prove(log, { trustedKey: key.publicKey });
    expect(report.ok).toBe(false);
    expect(report.difference).toEqual(expect.objectContaining({ kind: how, offset }));
  });

  it('catches a cut tail against the end a previous verify reported, and says the log alone cannot', async () => {
    const { log } = await open();
    await copyInto(log, tampered(signed, 'truncated', 100));
    const alone = await prove(log, { trustedKey: key.publicKey });
    expect(alone.difference?.kind).not.toBe('truncated');
    const report = await prove(log, { trustedKey: key.publicKey, expect: untouched.end });
    expect(report.difference).toEqual(expect.objectContaining({ kind: 'truncated', offset: 100 }));
  });

  it('refuses a checkpoint changed by hand: its signature no longer holds', async () => {
    const at = signed.findIndex((value) => value.includes('"AuditCheckpointed"'));
    const forged = [...signed];
    forged[at] = forged[at]!.replace(/"state":"[0-9a-f]{64}"/, `"state":"${'0'.repeat(64)}"`);
    const { log } = await open();
    await copyInto(log, forged);
    const report = await prove(log, { trustedKey: key.publicKey });
    expect(report.problems).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'signature', offset: at })]));
    expect(report.difference).toEqual(expect.objectContaining({ offset: at }));
  });

  it('refuses checkpoints signed by a key the auditor does not trust', async () => {
    const { log } = await open();
    await copyInto(log, signed);
    const other = newSigningKey().key;
    const report = await prove(log, { trustedKey: other.publicKey });
    expect(report.ok).toBe(false);
    expect(report.difference?.kind).toBe('key');
  });

  it('follows a key rotation: the new key announced in a checkpoint the old one signed', async () => {
    const next = newSigningKey().key;
    const { log } = await open();
    const half = Math.floor(session.length / 2);
    await writeSignedLog(log, session.slice(0, half), { key, everyRecords: 10 });
    await writeSignedLog(log, session.slice(half), { key: next, previousKey: key, everyRecords: 10, instance: 'reaper-audit-test-2' });
    const report = await prove(log, { trustedKey: key.publicKey });
    expect(report.problems).toEqual([]);
    expect(report.keys.map((use) => [use.fingerprint, use.trust])).toEqual([
      [key.fingerprint, 'given'],
      [next.fingerprint, 'announced'],
    ]);
    // Trusting only the new key, the old one's checkpoints are not proof.
    const newOnly = await prove(log, { trustedKey: next.publicKey });
    expect(newOnly.difference?.kind).toBe('key');
  });

  it('checks a checkpoint that lands after a later one (spans overlapping), though no segment ends where it signs', async () => {
    const values = session.slice(0, 30);
    values.push(checkpointOf(values, 0, 29, key), checkpointOf(values, 0, 19, key, 'f'.repeat(64)));
    const { log } = await open();
    await copyInto(log, values);
    const report = await prove(log, { trustedKey: key.publicKey });
    expect(report.checkpoints).toBe(2);
    expect(report.signedThrough).toBe(29);
    expect(report.problems).toEqual([expect.objectContaining({ kind: 'state', offset: 19 })]);
  });

  it('chains a long unsigned stretch, cut into segments where no checkpoint cuts it, to the same end', async () => {
    const { log } = await open();
    await copyInto(log, Array.from({ length: 2 * 20_000 + 10 }, (_, i) => `{"unsigned":${i}}`), 5_000);
    const report = await prove(log, {});
    expect(report.end.through).toBe(2 * 20_000 + 9);
  });
});
