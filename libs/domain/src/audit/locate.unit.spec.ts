import { CHAIN_START, chainLink, recordDigest, splitDigests } from './chain';
import { firstDifference } from './locate';
import type { DigestAt } from './locate';

const at = (digests: readonly string[]): DigestAt[] => digests.map((digest, offset) => ({ offset, digest }));
const signed = at(['a', 'b', 'c', 'd', 'e']);

describe('audit chain', () => {
  it('links each record to the one before, by its bytes and its offset', () => {
    const one = chainLink(CHAIN_START, 0, 'x');
    expect(one).toMatch(/^[0-9a-f]{64}$/);
    expect(chainLink(CHAIN_START, 1, 'x')).not.toBe(one);
    expect(chainLink(one, 1, 'y')).not.toBe(chainLink(chainLink(CHAIN_START, 0, 'y'), 1, 'x'));
    // The offset is read after the last newline: "x\n1" at 0 is not "x" at 10.
    expect(chainLink(CHAIN_START, 0, 'x\n1')).not.toBe(chainLink(CHAIN_START, 10, 'x'));
  });

  it('splits digests back into one per record, and refuses a list of the wrong width', () => {
    const digests = [recordDigest('a'), recordDigest('b')];
    expect(splitDigests(digests.join(''))).toEqual(digests);
    expect(splitDigests('abc')).toBeUndefined();
  });
});

describe('firstDifference', () => {
  it('finds none when the log holds every signed record in place, whatever follows', () => {
    expect(firstDifference(at(['a', 'b', 'c', 'd', 'e', 'f']), signed)).toBeUndefined();
  });
  it.each([
    ['changed', ['a', 'b', 'X', 'd', 'e'], 2],
    ['removed', ['a', 'b', 'd', 'e'], 2],
    ['inserted', ['a', 'b', 'X', 'c', 'd', 'e'], 2],
    ['reordered', ['a', 'b', 'd', 'c', 'e'], 2],
    ['truncated', ['a', 'b', 'c'], 3],
    ['truncated', ['a', 'b', 'c', 'd'], 4],
  ] as const)('names a %s record: %j at offset %i', (kind, log, offset) => {
    expect(firstDifference(at(log), signed)).toEqual(expect.objectContaining({ kind, offset }));
  });
});
