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

describe('firstDifference, as the verifier tells it', () => {
  it.each([
    ['a record changed', ['a', 'b', 'X', 'd', 'e'], { kind: 'changed', offset: 2, detail: 'the record at offset 2 is not the one signed there' }],
    ['the last signed record changed, a record after it', ['a', 'b', 'c', 'd', 'X', 'f'], { kind: 'changed', offset: 4, detail: 'the record at offset 4 is not the one signed there' }],
    ['a record removed', ['a', 'b', 'd', 'e'], { kind: 'removed', offset: 2, detail: 'the record signed at offset 2 is missing: offset 2 holds the one signed at 3' }],
    ['the last but one removed', ['a', 'b', 'c', 'e'], { kind: 'removed', offset: 3, detail: 'the record signed at offset 3 is missing: offset 3 holds the one signed at 4' }],
    ['a record inserted', ['a', 'b', 'X', 'c', 'd', 'e'], { kind: 'inserted', offset: 2, detail: 'offset 2 holds a record that was never signed; the one signed there follows it' }],
    ['two records swapped', ['a', 'b', 'd', 'c', 'e'], { kind: 'reordered', offset: 2, detail: "the records signed at offsets 2 and 3 are in each other's place" }],
    ['the log cut short', ['a', 'b', 'c'], { kind: 'truncated', offset: 3, detail: 'the log ends at offset 3; the signed history goes on to offset 4' }],
    ['an empty log', [], { kind: 'truncated', offset: 0, detail: 'the log ends at offset 0; the signed history goes on to offset 4' }],
  ] as const)('%s: says where and what', (_, log, difference) => {
    expect(firstDifference(at(log), signed)).toEqual(difference);
  });

  it('given a record removed and the next one changed too, then it is a change where they part, not a removal', () => {
    expect(firstDifference(at(['a', 'b', 'd', 'X']), signed)).toEqual({ kind: 'changed', offset: 2, detail: 'the record at offset 2 is not the one signed there' });
  });

  it('given the signed records at other offsets (a gap in the log), then it names where the one signed there now is', () => {
    const shifted: DigestAt[] = [
      { offset: 0, digest: 'a' },
      { offset: 1, digest: 'b' },
      { offset: 3, digest: 'c' },
      { offset: 4, digest: 'd' },
      { offset: 5, digest: 'e' },
    ];
    expect(firstDifference(shifted, signed)).toEqual({ kind: 'changed', offset: 3, detail: 'the record signed at offset 2 is at offset 3' });
    // The same when the log ends at that record: where they part comes first.
    expect(firstDifference(shifted.slice(0, 3), signed)).toEqual({ kind: 'changed', offset: 3, detail: 'the record signed at offset 2 is at offset 3' });
  });
});
