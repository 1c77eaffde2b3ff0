/**
 * The partition assigner of a lease group. Each member wants one partition (the one its
 * log is for) and says, in its join metadata, whether it holds it and since which
 * generation, and which instance it runs in. An instance runs one member per partition, so
 * it appears as many members; partitions are spread over instances, not members. The group
 * leader, taking partitions in ascending order:
 *   1. leaves each held partition with its holder (the latest generation wins, should a
 *      stale member still claim it);
 *   2. gives each partition nobody holds to the least loaded instance that wants it;
 *   3. moves partitions one at a time, from the most loaded instance, to the least loaded
 *      other instance that wants them while that one has at least two fewer: so an instance
 *      that joins gets its share, the others give up only what it takes, and loads end at
 *      most one apart (when every instance wants every partition).
 * Ties go to the first member in the coordinator's order. A moved holder's lease ends and
 * its runner becomes a standby; the log's term fencing keeps it from acting on what it no
 * longer owns. Partitions nobody wants stay unassigned.
 */
import { AssignerProtocol } from 'kafkajs';
import type { Assigner, Cluster, GroupMemberAssignment, PartitionAssigner } from 'kafkajs';

const { MemberMetadata, MemberAssignment } = AssignerProtocol;

export const LEASE_PROTOCOL = 'ShoalLease';

/** What a member says about itself when it joins. */
export interface LeaseClaim {
  readonly topic: string;
  /** The partition of `topic` this member wants to own. */
  readonly want: number;
  /** The generation since which it holds `want`, if it does. */
  readonly heldSince?: number;
  /** The member's instance name (what its lease's `members()` lists). */
  readonly instance?: string;
}

const decodeClaim = (userData: Buffer | null | undefined): LeaseClaim | undefined => {
  if (!userData?.length) return undefined;
  try {
    const claim = JSON.parse(userData.toString('utf8')) as Partial<LeaseClaim>;
    if (typeof claim.topic !== 'string' || typeof claim.want !== 'number') return undefined;
    return {
      topic: claim.topic,
      want: claim.want,
      ...(typeof claim.heldSince === 'number' ? { heldSince: claim.heldSince } : {}),
      ...(typeof claim.instance === 'string' && claim.instance !== '' ? { instance: claim.instance } : {}),
    };
  } catch {
    return undefined;
  }
};

/** What a member said when it joined, from its metadata as the group coordinator keeps it (describeGroup). */
export const claimOf = (memberMetadata: Buffer): LeaseClaim | undefined => {
  try {
    return decodeClaim(MemberMetadata.decode(memberMetadata)?.userData);
  } catch {
    return undefined;
  }
};

type Member = { readonly memberId: string; readonly claim?: LeaseClaim };
type Claimant = { readonly memberId: string; readonly claim: LeaseClaim };

/** The instance a member runs in; a member that names none is an instance of its own. */
const instanceOf = (member: Claimant): string => member.claim.instance ?? member.memberId;

const latestHolder = (wanting: readonly Claimant[]): Claimant | undefined =>
  wanting.reduce<Claimant | undefined>(
    (best, member) =>
      member.claim.heldSince !== undefined && (best === undefined || member.claim.heldSince > best.claim.heldSince!) ? member : best,
    undefined,
  );

/** Chooses each partition's holder among the members (pure: the leader runs it at every rebalance). */
export const assignLeases = (members: readonly Member[], topic: string, partitions: readonly number[]): Map<string, number[]> => {
  const assignment = new Map<string, number[]>(members.map((member) => [member.memberId, []]));
  const wantingOf = new Map<number, Claimant[]>();
  for (const partition of [...new Set(partitions)].sort((a, b) => a - b)) {
    const wanting = members.filter(
      (member): member is Claimant => member.claim?.topic === topic && member.claim.want === partition,
    );
    if (wanting.length > 0) wantingOf.set(partition, wanting);
  }

  const load = new Map<string, number>([...wantingOf.values()].flat().map((member) => [instanceOf(member), 0]));
  const loadOf = (member: Claimant): number => load.get(instanceOf(member))!;
  const leastLoaded = (candidates: readonly Claimant[]): Claimant =>
    candidates.reduce((best, member) => (loadOf(member) < loadOf(best) ? member : best));
  const owners = new Map<number, Claimant>();
  const give = (partition: number, member: Claimant): void => {
    const previous = owners.get(partition);
    if (previous) load.set(instanceOf(previous), loadOf(previous) - 1);
    owners.set(partition, member);
    load.set(instanceOf(member), loadOf(member) + 1);
  };

  for (const [partition, wanting] of wantingOf) {
    const holder = latestHolder(wanting);
    if (holder) give(partition, holder);
  }

  for (const [partition, wanting] of wantingOf) {
    if (!owners.has(partition)) give(partition, leastLoaded(wanting));
  }

  // One partition at a time from the most loaded instance that can give one: each move
  // leaves the loads more even (the sum of their squares falls), so this ends.
  const successorFor = (partition: number, owner: Claimant): Claimant | undefined => {
    const others = wantingOf.get(partition)!.filter((member) => instanceOf(member) !== instanceOf(owner));
    const successor = others.length > 0 ? leastLoaded(others) : undefined;
    return successor && loadOf(successor) < loadOf(owner) - 1 ? successor : undefined;
  };
  for (;;) {
    const byLoad = [...owners].sort(([a, x], [b, y]) => loadOf(y) - loadOf(x) || (instanceOf(x) < instanceOf(y) ? -1 : instanceOf(x) > instanceOf(y) ? 1 : a - b));
    const move = byLoad.map(([partition, owner]) => ({ partition, successor: successorFor(partition, owner) })).find((candidate) => candidate.successor);
    if (!move) break;
    give(move.partition, move.successor!);
  }

  for (const [partition, owner] of [...owners].sort(([a], [b]) => a - b)) assignment.get(owner.memberId)!.push(partition);
  return assignment;
};

/** The kafkajs assigner; `claim` is asked at every join, so it reports the member's current state. */
export const leaseAssigner =
  (claim: () => LeaseClaim): PartitionAssigner =>
  ({ cluster }: { cluster: Cluster }): Assigner => ({
    name: LEASE_PROTOCOL,
    version: 1,

    async assign({ members, topics }): Promise<GroupMemberAssignment[]> {
      const decoded = members.map((member) => {
        const found = claimOf(member.memberMetadata);
        return found ? { memberId: member.memberId, claim: found } : { memberId: member.memberId };
      });
      const byMember = new Map<string, Record<string, number[]>>(members.map((member) => [member.memberId, {}]));
      for (const topic of topics) {
        const partitions = cluster.findTopicPartitionMetadata(topic).map((metadata) => metadata.partitionId);
        for (const [memberId, assigned] of assignLeases(decoded, topic, partitions)) {
          if (assigned.length > 0) byMember.get(memberId)![topic] = assigned;
        }
      }
      return [...byMember].map(([memberId, assignment]) => ({
        memberId,
        memberAssignment: MemberAssignment.encode({ version: 1, assignment, userData: Buffer.alloc(0) }),
      }));
    },

    protocol({ topics }) {
      return {
        name: LEASE_PROTOCOL,
        metadata: MemberMetadata.encode({ version: 1, topics, userData: Buffer.from(JSON.stringify(claim())) }),
      };
    },
  });
