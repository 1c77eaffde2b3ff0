import { AssignerProtocol } from 'kafkajs';
import { assignLeases, claimOf, leaseAssigner } from './lease-assigner';
import type { LeaseClaim } from './lease-assigner';

const T = 'shoal.events';
const assigned = (result: Map<string, number[]>) => Object.fromEntries([...result].filter(([, partitions]) => partitions.length > 0));

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
