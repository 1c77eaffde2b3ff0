/**
 * A partition assigner that leaves a partition with the member that holds it. kafkajs's
 * round-robin would hand a partition to whichever member sorts first, so every standby
 * that joins would take ownership away; here ownership only moves when its holder leaves.
 * Each member tells the leader, in its protocol metadata, which partitions it holds.
 */
import { AssignerProtocol } from 'kafkajs';
import type { Assigner, Cluster, GroupMemberAssignment } from 'kafkajs';

const { MemberMetadata, MemberAssignment } = AssignerProtocol;

type Held = Record<string, number[]>;

export const stickyAssigner =
  (held: () => Held) =>
  ({ cluster }: { cluster: Cluster }): Assigner => ({
    name: 'ShoalStickyAssigner',
    version: 1,

    async assign({ members, topics }): Promise<GroupMemberAssignment[]> {
      const memberIds = members.map((member) => member.memberId).sort();
      const assignment = new Map<string, Held>(memberIds.map((id) => [id, {}]));
      const owner = new Map<string, string>();
      for (const member of members) {
        const metadata = MemberMetadata.decode(member.memberMetadata);
        let claims: Held = {};
        try {
          claims = metadata?.userData?.length ? (JSON.parse(metadata.userData.toString('utf8')) as Held) : {};
        } catch {
          claims = {};
        }
        for (const [topic, partitions] of Object.entries(claims)) {
          for (const partition of partitions) {
            const key = `${topic}:${partition}`;
            if (!owner.has(key)) owner.set(key, member.memberId);
          }
        }
      }
      let next = 0;
      for (const topic of topics) {
        for (const { partitionId } of cluster.findTopicPartitionMetadata(topic)) {
          const claimed = owner.get(`${topic}:${partitionId}`);
          const memberId = claimed && assignment.has(claimed) ? claimed : memberIds[next++ % memberIds.length]!;
          const mine = assignment.get(memberId)!;
          (mine[topic] ??= []).push(partitionId);
        }
      }
      return [...assignment.entries()].map(([memberId, topicsOf]) => ({
        memberId,
        memberAssignment: MemberAssignment.encode({ version: this.version, assignment: topicsOf, userData: Buffer.alloc(0) }),
      }));
    },

    protocol({ topics }) {
      return {
        name: this.name,
        metadata: MemberMetadata.encode({ version: this.version, topics, userData: Buffer.from(JSON.stringify(held())) }),
      };
    },
  });
