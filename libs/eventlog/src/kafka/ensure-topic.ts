/**
 * The log's topic: created on first use as topic-durability.ts requires it (infinite
 * retention, no compaction, the required replicas and min.insync.replicas, no unclean
 * leader election: the log is the store), then waited on until the partition we use has a
 * leader. An existing topic is left as it is: topic-check.ts judges it. A topic beside the
 * log (the secrets' data keys) is made the same way, with a configuration of its own.
 */
import type { Admin } from 'kafkajs';
import { logTopicConfig } from './topic-durability';
import type { Durability } from './topic-durability';

export interface TopicSpec {
  readonly topic: string;
  /** Partitions to create it with; an existing topic is left as it is. */
  readonly partitions: number;
  /** The partition this log uses: it must exist. */
  readonly partition: number;
  /** Largest record batch the topic accepts: an append is one batch. */
  readonly maxMessageBytes: number;
  /** The replicas and min.insync.replicas to create it with. */
  readonly required: Durability;
  /** Its configuration; default the log's (logTopicConfig). */
  readonly config?: Readonly<Record<string, string>>;
}

const LEADER_WAIT_MS = 30_000;
/**
 * How long too few brokers are asked again before the topic is refused: a broker that is
 * starting, or fenced for a moment (a missed heartbeat on a loaded machine), is not in the
 * metadata until it registers again.
 */
const BROKERS_WAIT_MS = 10_000;

/** The brokers the cluster's metadata lists, asked again for a while when they are fewer than `wanted`. */
const brokersUpTo = async (admin: Admin, wanted: number): Promise<number> => {
  const deadline = Date.now() + BROKERS_WAIT_MS;
  for (;;) {
    const { brokers } = await admin.describeCluster();
    if (brokers.length >= wanted || Date.now() >= deadline) return brokers.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
};

export const ensureTopic = async (admin: Admin, spec: TopicSpec): Promise<void> => {
  const wanted = spec.required.replicationFactor;
  const exists = async (): Promise<boolean> => (await admin.listTopics()).includes(spec.topic);
  if (!(await exists())) {
    const brokers = await brokersUpTo(admin, wanted);
    if (brokers < wanted && !(await exists())) {
      throw new Error(
        `cannot create ${spec.topic} with ${wanted} replicas on ${brokers} broker(s): ` +
          `add brokers, or set SHOAL_KAFKA_REPLICATION_FACTOR=${brokers} if fewer copies are really meant`,
      );
    }
  }
  // Answers false, without throwing, when the topic is already there (or another process just made it).
  // Not kafkajs's waitForLeaders (on unless turned off): it fails on a broker that answers "does not
  // host this topic-partition" a moment after the create (KRaft metadata still on its way to
  // it); the loop below waits.
  await admin.createTopics({
    waitForLeaders: false,
    topics: [
      {
        topic: spec.topic,
        numPartitions: spec.partitions,
        replicationFactor: spec.required.replicationFactor,
        configEntries: [
          ...Object.entries(spec.config ?? logTopicConfig(spec.required)).map(([name, value]) => ({ name, value })),
          { name: 'max.message.bytes', value: String(spec.maxMessageBytes) },
        ],
      },
    ],
  });
  const deadline = Date.now() + LEADER_WAIT_MS;
  for (;;) {
    const partitions = await admin.fetchTopicMetadata({ topics: [spec.topic] }).then(
      ({ topics }) => topics[0]?.partitions ?? [],
      (error: unknown) => {
        if (Date.now() > deadline) throw error;
        return [];
      },
    );
    const mine = partitions.find((partition) => partition.partitionId === spec.partition);
    if (!mine && partitions.length > 0) {
      throw new Error(`topic ${spec.topic} has ${partitions.length} partition(s); there is no partition ${spec.partition}`);
    }
    if (mine && mine.leader >= 0) return;
    if (Date.now() > deadline) throw new Error(`${spec.topic}[${spec.partition}] has no leader after ${LEADER_WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};
