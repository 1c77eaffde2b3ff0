/**
 * The log's topic: created on first use with infinite retention and no compaction (the log
 * is the store), then waited on until the partition we use has a leader.
 */
import type { Admin } from 'kafkajs';

export interface TopicSpec {
  readonly topic: string;
  /** Partitions to create it with; an existing topic is left as it is. */
  readonly partitions: number;
  /** The partition this log uses: it must exist. */
  readonly partition: number;
  /** Largest record batch the topic accepts: an append is one batch. */
  readonly maxMessageBytes: number;
}

export const TOPIC_CONFIG = {
  'retention.ms': '-1',
  'retention.bytes': '-1',
  'cleanup.policy': 'delete',
} as const;

const LEADER_WAIT_MS = 30_000;

export const ensureTopic = async (admin: Admin, spec: TopicSpec): Promise<void> => {
  const { brokers } = await admin.describeCluster();
  // Answers false, without throwing, when the topic is already there (or another process just made it).
  await admin.createTopics({
    waitForLeaders: true,
    topics: [
      {
        topic: spec.topic,
        numPartitions: spec.partitions,
        replicationFactor: Math.min(3, brokers.length),
        configEntries: [
          ...Object.entries(TOPIC_CONFIG).map(([name, value]) => ({ name, value })),
          { name: 'max.message.bytes', value: String(spec.maxMessageBytes) },
        ],
      },
    ],
  });
  const deadline = Date.now() + LEADER_WAIT_MS;
  for (;;) {
    const { topics } = await admin.fetchTopicMetadata({ topics: [spec.topic] });
    const partitions = topics[0]?.partitions ?? [];
    const mine = partitions.find((partition) => partition.partitionId === spec.partition);
    if (!mine && partitions.length > 0) {
      throw new Error(`topic ${spec.topic} has ${partitions.length} partition(s); there is no partition ${spec.partition}`);
    }
    if (mine && mine.leader >= 0) return;
    if (Date.now() > deadline) throw new Error(`${spec.topic}[${spec.partition}] has no leader after ${LEADER_WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};
