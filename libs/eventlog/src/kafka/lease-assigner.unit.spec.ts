import fc from 'fast-check';
import { AssignerProtocol } from 'kafkajs';
import { assignLeases, claimOf, leaseAssigner } from './lease-assigner';
import type { LeaseClaim } from './lease-assigner';

const T = 'shoal.events';
const assigned = (result: Map<string, number[]>) => Object.fromEntries([...result].filter(([, partitions]) => partitions.length > 0));

type Member = { memberId: string; claim: LeaseClaim };
const range = (count: number): number[] => Array.from({ length: count }, (_, index) => index);

/** An instance's runners: one member per partition, `<instance>/<partition>`, holding those `held` says since when. */
const instance = (name: string, partitions: readonly number[], held: (partition: number) => number | undefined = () => undefined): Member[] =>
  partitions.map((want) => {
    const heldSince = held(want);
    return { memberId: `${name}/${want}`, claim: { topic: T, want, instance: name, ...(heldSince === undefined ? {} : { heldSince }) } };
  });

const ownedBy = (result: Map<string, number[]>, name: string): number[] =>
  [...result].filter(([memberId]) => memberId.startsWith(`${name}/`)).flatMap(([, partitions]) => partitions).sort((a, b) => a - b);

/** Every partition some member wants is assigned exactly once, to a member that wants it. */
const expectEachWantedOnce = (members: readonly Member[], result: Map<string, number[]>): void => {
  const wanted = new Set(members.map((member) => member.claim.want));
  const given = [...result].flatMap(([memberId, partitions]) => partitions.map((partition) => ({ memberId, partition })));
  expect(given.map(({ partition }) => partition).sort((a, b) => a - b)).toEqual([...wanted].sort((a, b) => a - b));
  for (const { memberId, partition } of given) expect(members.find((member) => member.memberId === memberId)?.claim.want).toBe(partition);
};

const heldAs = (result: Map<string, number[]>, generation: number) => (memberId: string, partition: number) =>
  result.get(memberId)?.includes(partition) ? generation : undefined;

describe('assignLeases', () => {
  it('gives a partition nobody holds to the first member that wants it', () => {
    const members = [
      { memberId: 'b', claim: { topic: T, want: 0 } },
      { memberId: 'a', claim: { topic: T, want: 0 } },
    ];
    expect(assigned(assignLeases(members, T, [0]))).toEqual({ b: [0] });
  });

  it('leaves a partition with its holder when a standby joins', () => {
    const members = [
      { memberId: 'standby', claim: { topic: T, want: 0 } },
      { memberId: 'holder', claim: { topic: T, want: 0, heldSince: 4 } },
    ];
    expect(assigned(assignLeases(members, T, [0]))).toEqual({ holder: [0] });
  });

  it('believes the latest holder when a stale member still claims the partition', () => {
    const members = [
      { memberId: 'stale', claim: { topic: T, want: 0, heldSince: 3 } },
      { memberId: 'current', claim: { topic: T, want: 0, heldSince: 7 } },
    ];
    expect(assigned(assignLeases(members, T, [0]))).toEqual({ current: [0] });
  });

  it('assigns each member only the partition it wants, and nothing nobody wants', () => {
    const members = [
      { memberId: 'zero', claim: { topic: T, want: 0 } },
      { memberId: 'two', claim: { topic: T, want: 2 } },
      { memberId: 'elsewhere', claim: { topic: 'other.events', want: 1 } },
      { memberId: 'mute' },
    ];
    const result = assignLeases(members, T, [0, 1, 2]);
    expect(assigned(result)).toEqual({ zero: [0], two: [2] });
    expect([...result.keys()]).toEqual(['zero', 'two', 'elsewhere', 'mute']);
  });

  describe('over instances that each run a member per partition', () => {
    it('leaves a single partition with its holder, whatever instances join', () => {
      const members = [...instance('a', [0]), ...instance('b', [0], () => 3), ...instance('c', [0])];
      expect(assigned(assignLeases(members, T, [0]))).toEqual({ 'b/0': [0] });
      const unheld = [...instance('c', [0]), ...instance('a', [0]), ...instance('b', [0])];
      expect(assigned(assignLeases(unheld, T, [0]))).toEqual({ 'c/0': [0] });
    });

    it('spreads partitions nobody holds evenly: 20 over 3 instances is 7, 7 and 6', () => {
      const members = [...instance('a', range(20)), ...instance('b', range(20)), ...instance('c', range(20))];
      const result = assignLeases(members, T, range(20));
      expectEachWantedOnce(members, result);
      expect(['a', 'b', 'c'].map((name) => ownedBy(result, name).length)).toEqual([7, 7, 6]);
    });

    it('moves half the partitions to an instance that joins, then a third to the next, and no more', () => {
      const a = instance('a', range(20), () => 1);
      const withB = [...a, ...instance('b', range(20))];
      const second = assignLeases(withB, T, range(20));
      expectEachWantedOnce(withB, second);
      expect(ownedBy(second, 'a')).toHaveLength(10);
      expect(ownedBy(second, 'b')).toHaveLength(10);

      const held = heldAs(second, 2);
      const withC = [...instance('a', range(20), (p) => held(`a/${p}`, p)), ...instance('b', range(20), (p) => held(`b/${p}`, p)), ...instance('c', range(20))];
      const third = assignLeases(withC, T, range(20));
      expectEachWantedOnce(withC, third);
      const [ownedA, ownedB, ownedC] = ['a', 'b', 'c'].map((name) => ownedBy(third, name));
      expect([ownedA!.length, ownedB!.length, ownedC!.length].sort()).toEqual([6, 7, 7]);
      expect(ownedA!.every((partition) => ownedBy(second, 'a').includes(partition))).toBe(true);
      expect(ownedB!.every((partition) => ownedBy(second, 'b').includes(partition))).toBe(true);
    });

    it('evens out an instance left two short though no one is over a fair share', () => {
      // Seven partitions over three instances: A and B hold three each, C none, one is unheld.
      const held = (partition: number) => (partition < 6 ? 5 : undefined);
      const members = [...instance('a', range(7), (p) => (p < 3 ? held(p) : undefined)), ...instance('b', range(7), (p) => (p >= 3 ? held(p) : undefined)), ...instance('c', range(7))];
      const result = assignLeases(members, T, range(7));
      expectEachWantedOnce(members, result);
      expect([ownedBy(result, 'a').length, ownedBy(result, 'b').length, ownedBy(result, 'c').length].sort()).toEqual([2, 2, 3]);
    });

    it('gives a killed instance partitions to the others evenly', () => {
      const all = [...instance('a', range(20)), ...instance('b', range(20)), ...instance('c', range(20))];
      const before = assignLeases(all, T, range(20));
      const held = heldAs(before, 1);
      const survivors = [...instance('b', range(20), (p) => held(`b/${p}`, p)), ...instance('c', range(20), (p) => held(`c/${p}`, p))];
      const result = assignLeases(survivors, T, range(20));
      expectEachWantedOnce(survivors, result);
      expect(ownedBy(result, 'b')).toHaveLength(10);
      expect(ownedBy(result, 'c')).toHaveLength(10);
      expect(ownedBy(result, 'b')).toEqual(expect.arrayContaining(ownedBy(before, 'b')));
      expect(ownedBy(result, 'c')).toEqual(expect.arrayContaining(ownedBy(before, 'c')));
    });

    it('believes the latest holder over a stale one of another instance', () => {
      const members = [...instance('a', [0, 1], () => 3), ...instance('b', [0], () => 5), ...instance('b', [1])];
      expect(assigned(assignLeases(members, T, [0, 1]))).toEqual({ 'b/0': [0], 'a/1': [1] });
    });

    it('gives the same answer to the same question', () => {
      const members = [...instance('a', range(12), (p) => (p % 3 === 0 ? 2 : undefined)), ...instance('b', range(12)), ...instance('c', range(12).reverse())];
      expect(assignLeases(members, T, range(12))).toEqual(assignLeases(members, T, range(12)));
    });

    it('assigns every wanted partition once and, with none held, balances instances within one', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 24 }),
          fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
          (partitionCount, seeds) => {
            const members = seeds.flatMap((seed, index) => {
              const order = range(partitionCount).sort((x, y) => ((x * 7919 + seed) % 97) - ((y * 7919 + seed) % 97));
              return instance(`i${index}`, order);
            });
            const result = assignLeases(members, T, range(partitionCount));
            expectEachWantedOnce(members, result);
            const loads = seeds.map((_, index) => ownedBy(result, `i${index}`).length);
            expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(1);
          },
        ),
      );
    });

    it('assigns every wanted partition once to a member that wants it, whatever the claims', () => {
      const claim = fc.record({ want: fc.nat({ max: 7 }), heldSince: fc.option(fc.nat({ max: 5 }), { nil: undefined }), instance: fc.constantFrom('a', 'b', 'c') });
      fc.assert(
        fc.property(fc.array(claim, { maxLength: 30 }), (claims) => {
          const members = claims.map(({ want, heldSince, instance: name }, index) => ({
            memberId: `${name}/${index}`,
            claim: { topic: T, want, instance: name, ...(heldSince === undefined ? {} : { heldSince }) },
          }));
          expectEachWantedOnce(members, assignLeases(members, T, range(8)));
        }),
      );
    });
  });
});

describe('a lease claim', () => {
  const metadataOf = (claim: LeaseClaim): Buffer => {
    const assigner = leaseAssigner(() => claim)({} as Parameters<ReturnType<typeof leaseAssigner>>[0]);
    return assigner.protocol({ topics: [T] }).metadata;
  };

  it('names the member instance in its join metadata, which the group coordinator hands back', () => {
    expect(claimOf(metadataOf({ topic: T, want: 0, instance: 'dispatcher-1@127.0.0.1:4243' }))).toEqual({ topic: T, want: 0, instance: 'dispatcher-1@127.0.0.1:4243' });
    expect(claimOf(metadataOf({ topic: T, want: 2, heldSince: 5, instance: 'b' }))).toEqual({ topic: T, want: 2, heldSince: 5, instance: 'b' });
  });

  it('reads a claim without an instance (an older member), and nothing from metadata that is not one', () => {
    expect(claimOf(metadataOf({ topic: T, want: 0 }))).toEqual({ topic: T, want: 0 });
    const foreign = AssignerProtocol.MemberMetadata.encode({ version: 1, topics: [T], userData: Buffer.from('not json') });
    expect(claimOf(foreign)).toBeUndefined();
    expect(claimOf(Buffer.from([1, 2, 3]))).toBeUndefined();
  });
});
