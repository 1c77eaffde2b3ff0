import { assignLeases } from './lease-assigner';

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
