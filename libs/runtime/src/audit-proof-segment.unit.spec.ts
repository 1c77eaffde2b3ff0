/**
 * A segment checked on its own gives what the whole log's chain and digests give for its
 * records, from the link claimed at its start; the pool's worker threads give the same as
 * this thread, for more segments than it has workers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AuditChain, recordDigest } from '@shoal/domain';
import { newSigningKey, signCheckpoint } from './audit-keys';
import { checkSegment } from './audit-proof-segment';
import type { Segment } from './audit-proof-segment';
import { SegmentPool } from './audit-proof-pool';

const session = readFileSync(join(__dirname, '../../../test/golden/docker-session.jsonl'), 'utf8').split('\n').filter(Boolean);

/** The session's records from `from` to `to`, with the whole log's chain through the one before. */
const segmentOf = (from: number, to: number, link = true): Segment => {
  const chain = new AuditChain();
  session.slice(0, from).forEach((value, offset) => chain.add(offset, value));
  const offsets = session.slice(from, to).map((_, i) => from + i);
  return { offsets, values: session.slice(from, to), ...(link ? { link: chain.link } : {}) };
};

describe('a segment of the log checked on its own', () => {
  it('chains on from the link claimed at its start to the whole log chain at its end, and digests each record', () => {
    const whole = new AuditChain();
    session.slice(0, 60).forEach((value, offset) => whole.add(offset, value));
    const check = checkSegment(segmentOf(25, 60));
    expect(check.end).toBe(whole.link);
    expect(check.digests).toBe(session.slice(25, 60).map(recordDigest).join(''));
    expect(check.signatures).toEqual([]);
  });

  it('leaves the chain out when no link is claimed at its start', () => {
    expect(checkSegment(segmentOf(25, 60, false)).end).toBeUndefined();
  });

  it("checks each checkpoint's signature among its records, a changed one failing", () => {
    const { key } = newSigningKey();
    const data = signCheckpoint('c1', { from: 0, through: 9, chain: '0'.repeat(64), state: '1'.repeat(64), digests: '' }, key);
    const record = (signed: object): string => JSON.stringify({ id: 'k', type: 'AuditCheckpointed', v: 1, cluster: 'c1', at: '2026-01-01T00:00:00.000Z', by: { component: 'reaper', instance: 'reaper-audit-test', term: 1 }, seq: 1, data: signed });
    const check = checkSegment({ offsets: [10, 11, 12], values: [record(data), session[11]!, record({ ...data, through: 8 })], link: '0'.repeat(64) });
    expect(check.signatures).toEqual([
      [10, true],
      [12, false],
    ]);
  });
});

describe('the pool of worker threads', () => {
  it('checks segments on its workers as this thread does, more segments than workers, each under its own', async () => {
    const pool = new SegmentPool(2);
    try {
      const segments = [segmentOf(0, 20), segmentOf(20, 45), segmentOf(45, 70, false), segmentOf(70, 100), segmentOf(100, 101)];
      const checks = await Promise.all(segments.map((segment) => pool.check(segment)));
      expect(checks).toEqual(segments.map(checkSegment));
      expect(pool.pending).toBe(0);
    } finally {
      await pool.close();
    }
  });
});
