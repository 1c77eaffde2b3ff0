/**
 * The partition assigner of a lease group. Each member wants one partition (the one its
 * log is for) and says, in its join metadata, whether it holds it and since which
 * generation. The group leader then gives each partition to:
 *   1. the member that holds it (the latest generation wins, should a stale member still claim it);
 *   2. otherwise the first member, in the coordinator's order, that wants it.
 * So a standby that joins never takes a partition away: ownership moves only when its
 * holder leaves or its session expires. Partitions nobody wants stay unassigned.
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

/** Chooses each partition's holder among the members (pure: the leader runs it at every rebalance). */
export const assignLeases = (
  members: readonly { readonly memberId: string; readonly claim?: LeaseClaim }[],
  topic: string,
  partitions: readonly number[],
): Map<string, number[]> => {
  const assignment = new Map<string, number[]>(members.map((member) => [member.memberId, []]));
  for (const partition of partitions) {
    const wanting = members.filter((member) => member.claim?.topic === topic && member.claim.want === partition);
    const holders = wanting.filter((member) => member.claim?.heldSince !== undefined);
    const latest = holders.reduce<(typeof holders)[number] | undefined>(
      (best, member) => (best === undefined || member.claim!.heldSince! > best.claim!.heldSince! ? member : best),
      undefined,
    );
    const chosen = latest ?? wanting[0];
    if (chosen) assignment.get(chosen.memberId)!.push(partition);
  }
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
