import { createHash } from 'node:crypto';
import { RECORD_DIGEST_HEX } from '@shoal/contracts';
import { AuditChain, CHAIN_START, chainLink, recordDigest, splitDigests } from './chain';

/** SHA-256 of the UTF-8 bytes of `text`, in hex: what any consumer computes, with Node's own hash. */
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('the audit chain, as a consumer computes it from the records alone', () => {
  it('links a record as SHA-256 of the link before, its bytes, a newline and its offset', () => {
    for (const [previous, offset, value] of [
      [CHAIN_START, 0, ''],
      [CHAIN_START, 0, '{"type":"ClusterInitialized"}'],
      ['f'.repeat(64), 41, 'zürich ☃ 東京'],
      [sha256('x'), 1_000_000, 'line\nbreak'],
    ] as const) {
      expect(chainLink(previous, offset, value)).toBe(sha256(`${previous}${value}\n${offset}`));
    }
    expect(CHAIN_START).toBe('0'.repeat(64));
  });

  it('gives a record a short digest: the first hex digits of its bytes’ SHA-256', () => {
    for (const value of ['', 'a', '{"type":"TasksCreated"}', 'é']) {
      expect(recordDigest(value)).toBe(sha256(value).slice(0, RECORD_DIGEST_HEX));
      expect(recordDigest(value)).toHaveLength(RECORD_DIGEST_HEX);
    }
  });

  it('splits a checkpoint’s digests back into one per record, and refuses a list of the wrong width or not in lower-case hex', () => {
    const digests = ['a', 'b', 'c'].map(recordDigest);
    expect(splitDigests(digests.join(''))).toEqual(digests);
    expect(splitDigests('')).toEqual([]);
    expect(splitDigests(`${digests[0]}0`)).toBeUndefined();
    // The right width, but not hex: a character out of place at the start, in the middle, at the end.
    for (const bad of ['g12345678901', '0123456789ag', `${digests[0]}0123 5678901`, '0123456789AB', `${digests[0]}-12345678901`]) {
      expect(bad.length % RECORD_DIGEST_HEX).toBe(0);
      expect(splitDigests(bad)).toBeUndefined();
    }
  });

  it('runs the chain over records in order, from the start or from a link known at an offset', () => {
    const chain = new AuditChain();
    expect([chain.link, chain.through]).toEqual([CHAIN_START, -1]);
    const first = chain.add(0, 'a');
    expect(first).toBe(chainLink(CHAIN_START, 0, 'a'));
    expect([chain.link, chain.through]).toEqual([first, 0]);
    const second = chain.add(1, 'b');
    expect(second).toBe(chainLink(first, 1, 'b'));
    expect([chain.link, chain.through]).toEqual([second, 1]);

    const resumed = new AuditChain(first, 0);
    expect([resumed.link, resumed.through]).toEqual([first, 0]);
    expect(resumed.add(1, 'b')).toBe(second);
    expect(resumed.through).toBe(1);
  });
});
