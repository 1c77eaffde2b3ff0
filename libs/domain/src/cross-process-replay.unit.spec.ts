import fc from 'fast-check';
import { ReplayProcess, histories, logFromBytes, logToBytes, toRecords } from '@shoal/testing';
import { replay } from './projection';

/**
 * Replaying the same log gives the same state hash — not only twice in this process, where
 * a shared object, a module-level cache or Map order could make two replays agree by
 * accident, but in another process that gets nothing but the log's bytes.
 */
describe('replay across processes', () => {
  let other: ReplayProcess;

  beforeAll(() => {
    other = ReplayProcess.start();
  });

  afterAll(async () => {
    await other.stop();
  });

  it('a log serialised to bytes and replayed in a second process reaches the state hash of the replay here', async () => {
    await fc.assert(
      fc.asyncProperty(histories(), async (log) => {
        const records = log.map((value, offset) => ({ offset, value }));
        const here = replay(records);
        const bytes = logToBytes(records);
        const there = await other.replay(bytes);
        expect(there).toEqual({ id: expect.any(Number), pid: other.pid, hash: here.hash(), position: here.position, tally: here.tally });
        expect(there.pid).not.toBe(process.pid);
      }),
      { numRuns: 60 },
    );
  });

  it('the bytes carry every record whole: offsets, and values with any Unicode in them', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(1e9), fc.fullUnicodeString({ maxLength: 40 })), { maxLength: 20 }), (entries) => {
        const records = entries.map(([offset, value]) => ({ offset, value }));
        expect(logFromBytes(logToBytes(records))).toEqual(records);
      }),
    );
  });

  it('a second process answers for a log it cannot read with the reason, not a hash', async () => {
    const bytes = logToBytes(toRecords(['{"id":']));
    const answer = await other.replay(bytes.subarray(0, bytes.length - 3));
    expect(answer).toEqual({ id: expect.any(Number), pid: other.pid, error: 'record at offset 0 says 6 bytes, but only 3 follow' });
  });
});
