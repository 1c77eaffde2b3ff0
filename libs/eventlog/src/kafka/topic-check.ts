/**
 * The start-up check of every process that opens the log on Kafka: reads the events topic
 * and the group coordinator's topic (where the lease groups live) from the brokers, and
 * refuses, with what to change, what topic-durability.ts refuses.
 */
import { ConfigResourceTypes } from 'kafkajs';
import type { Admin } from 'kafkajs';
import { durabilityLine, leaseTopicRefusals, logTopicRefusals, producerRefusals, refusalMessage } from './topic-durability';
import type { Durability, ProducerFacts, Refusal, TopicFacts } from './topic-durability';

/** The topic Kafka keeps consumer groups in: the lease groups' state. */
export const GROUP_TOPIC = '__consumer_offsets';

const CHECKED = ['retention.ms', 'retention.bytes', 'cleanup.policy', 'min.insync.replicas', 'unclean.leader.election.enable'];

/** Thrown when a topic or the producer could lose the log's history; the message says what to change. */
export class TopicRefusedError extends Error {
  constructor(readonly refusals: readonly Refusal[]) {
    super(refusalMessage(refusals));
    this.name = 'TopicRefusedError';
  }
}

const DESCRIBE_WAIT_MS = 30_000;

const isRetriable = (error: unknown): boolean => typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === true;

/**
 * The topic as the brokers describe it; undefined when it does not exist. A broker the new
 * topic's metadata has not reached yet answers "does not host this topic-partition", or lists
 * no such topic (KRaft): such answers are asked again, for up to 30 s (`existing`: a topic
 * known to exist, which another broker has just said it holds).
 */
export const describeTopic = async (admin: Admin, topic: string, existing = false): Promise<TopicFacts | undefined> => {
  const deadline = Date.now() + DESCRIBE_WAIT_MS;
  for (;;) {
    try {
      const found = await describeOnce(admin, topic);
      if (found || !existing || Date.now() > deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 250));
    } catch (error) {
      if (!isRetriable(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
};

const describeOnce = async (admin: Admin, topic: string): Promise<TopicFacts | undefined> => {
  const [{ brokers }, topics] = await Promise.all([admin.describeCluster(), admin.listTopics()]);
  if (!topics.includes(topic)) return undefined;
  const [metadata, configs] = await Promise.all([
    admin.fetchTopicMetadata({ topics: [topic] }),
    admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: CHECKED }] }),
  ]);
  const config: Record<string, string> = {};
  for (const entry of configs.resources[0]?.configEntries ?? []) config[entry.configName] = entry.configValue;
  const partitions = metadata.topics[0]?.partitions ?? [];
  return { topic, config, replicas: partitions.map((partition) => partition.replicas.length), brokers: brokers.length };
};

/**
 * The group coordinator's topic; the brokers create it at the first question about a group,
 * so one is asked when it is not there yet.
 */
const groupTopic = async (admin: Admin, probeGroup: string): Promise<TopicFacts> => {
  const found = await describeTopic(admin, GROUP_TOPIC);
  if (found) return found;
  await admin.describeGroups([probeGroup]);
  const made = await describeTopic(admin, GROUP_TOPIC, true);
  if (!made) throw new Error(`the brokers did not create ${GROUP_TOPIC} when asked about the group ${probeGroup}`);
  return made;
};

/**
 * Checks the events topic (which must exist: ensureTopic first), the lease groups' topic
 * and the producer; throws TopicRefusedError naming every problem at once. Answers the
 * start-up line: what the log runs with.
 */
export const checkTopics = async (
  admin: Admin,
  options: { readonly topic: string; readonly groupPrefix: string; readonly required: Durability; readonly producer: ProducerFacts },
): Promise<string> => {
  const events = await describeTopic(admin, options.topic, true);
  if (!events) throw new Error(`the topic ${options.topic} does not exist`);
  const groups = await groupTopic(admin, `${options.groupPrefix}.start-up-check`);
  const refusals = [...logTopicRefusals(events, options.required), ...leaseTopicRefusals(groups, options.required), ...producerRefusals(options.producer)];
  if (refusals.length > 0) throw new TopicRefusedError(refusals);
  return durabilityLine(options.producer, events);
};
