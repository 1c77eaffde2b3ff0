import fc from 'fast-check';
import { Sha256, newSha256, replay, stateHash, useSha256 } from '@shoal/domain';
import type { Sha256Digest } from '@shoal/domain';
import { histories } from '@shoal/testing';
import { nodeSha256 } from '@shoal/runtime';

const records = (values: readonly string[]) => values.map((value, offset) => ({ offset, value }));

describe("node:crypto's SHA-256 for the domain's hashes", () => {
  afterAll(() => useSha256(nodeSha256));

  it('is installed by loading libs/runtime', () => {
    const digest = newSha256();
    expect(digest).not.toBeInstanceOf(Sha256);
    digest.update('abc');
    expect(digest.hex()).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('gives the domain digest of any text fed in any pieces', () => {
    fc.assert(
      fc.property(fc.array(fc.fullUnicodeString({ maxLength: 200 }), { maxLength: 20 }), (pieces) => {
        const own = new Sha256();
        const platform = nodeSha256();
        for (const piece of pieces) {
          own.update(piece);
          platform.update(piece);
        }
        expect(platform.hex()).toBe(own.hex());
      }),
      { numRuns: 500 },
    );
  });

  it("gives every state the hash the domain's own SHA-256 gives", () => {
    let made = 0;
    const countingNodeSha256 = (): Sha256Digest => {
      made += 1;
      return nodeSha256();
    };
    useSha256(countingNodeSha256);
    fc.assert(
      fc.property(histories(), (log) => {
        const state = replay(records(log)).state;
        const before = made;
        const platform = stateHash(state);
        expect(made).toBe(before + 1);
        useSha256(() => new Sha256());
        const own = stateHash(state);
        useSha256(countingNodeSha256);
        expect(platform).toBe(own);
      }),
      { numRuns: 100 },
    );
  });
});
