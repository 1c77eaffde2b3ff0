import { randomUUID } from 'node:crypto';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import type { Admin } from 'kafkajs';
import { testBrokers } from '@shoal/testing';
import { KafkaEventLog } from './kafka-event-log';
import type { KafkaEventLogOptions } from './kafka-event-log';
import { TopicRefusedError } from './topic-check';

const brokers = testBrokers();
const freshTopic = () => `shoal-test-${randomUUID()}.events`;
const open = (topic: string, options: Partial<KafkaEventLogOptions> = {}) => KafkaEventLog.open({ brokers, topic, clientId: 'topic-check-int', ...options });

/** The refusal `open` fails with, its error otherwise. */
const refusal = async (opening: Promise<KafkaEventLog>): Promise<TopicRefusedError> => {
  const outcome = await opening.then(
    async (log) => {
      await log.close();
      return new Error('the log opened');
    },
    (error: unknown) => error,
  );
  if (!(outcome instanceof TopicRefusedError)) throw outcome;
  return outcome;
};

describe('the start-up check of the Kafka topics', () => {
  let admin: Admin;
  beforeAll(async () => {
    admin = new Kafka({ brokers, clientId: 'topic-check-int', logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
  });

  /** A topic made by someone else, with `config` over Kafka's defaults. */
  const madeElsewhere = async (config: Record<string, string>): Promise<string> => {
    const topic = freshTopic();
    await admin.createTopics({
      waitForLeaders: false,
      topics: [{ topic, numPartitions: 1, replicationFactor: 1, configEntries: Object.entries({ 'retention.ms': '-1', ...config }).map(([name, value]) => ({ name, value })) }],
    });
    // Until its partition has a leader (a broker may answer "does not host" a moment after the create).
    for (;;) {
      const leader = await admin.fetchTopicMetadata({ topics: [topic] }).then(
        ({ topics }) => topics[0]?.partitions[0]?.leader ?? -1,
        () => -1,
      );
      if (leader >= 0) return topic;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('creates the events topic as the log needs it, and starts on it saying it writes with acks=all and idempotence', async () => {
    const topic = freshTopic();
    const log = await open(topic);
    try {
      expect(log.durability).toBe('acks=all, idempotent=true; replicas 1, min.insync.replicas 1, retention forever, unclean election off, 1 broker(s)');
      expect(log.description).toContain('acks=all, idempotent=true');
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms', 'retention.bytes', 'cleanup.policy', 'min.insync.replicas', 'unclean.leader.election.enable'] }],
      });
      expect(Object.fromEntries(resources[0]!.configEntries.map((entry) => [entry.configName, entry.configValue]))).toEqual({
        'retention.ms': '-1',
        'retention.bytes': '-1',
        'cleanup.policy': 'delete',
        'min.insync.replicas': '1',
        'unclean.leader.election.enable': 'false',
      });
      await log.append([{ key: 'k', value: '{}' }]);
    } finally {
      await log.close();
    }
  });

  it('starts on a right topic someone else made', async () => {
    const topic = await madeElsewhere({ 'retention.bytes': '-1', 'cleanup.policy': 'delete' });
    const log = await open(topic);
    await log.close();
  });

  it('refuses a topic with finite retention by time, saying to set it to -1', async () => {
    const topic = await madeElsewhere({ 'retention.ms': '86400000' });
    const error = await refusal(open(topic));
    expect(error.message).toContain(`${topic}: retention.ms is 86400000; the log is kept forever, so it must be -1: `);
    expect(error.message).toContain(`kafka-configs.sh --alter --entity-type topics --entity-name ${topic} --add-config retention.ms=-1`);
  });

  it('refuses a topic with finite retention by size', async () => {
    const topic = await madeElsewhere({ 'retention.bytes': '1073741824' });
    const error = await refusal(open(topic));
    expect(error.refusals).toEqual([expect.objectContaining({ subject: topic, setting: 'retention.bytes', found: '1073741824' })]);
    expect(error.message).toContain('--add-config retention.bytes=-1');
  });

  it('refuses a compacted topic', async () => {
    const topic = await madeElsewhere({ 'cleanup.policy': 'compact' });
    const error = await refusal(open(topic));
    expect(error.refusals).toEqual([expect.objectContaining({ subject: topic, setting: 'cleanup.policy', found: 'compact' })]);
    expect(error.message).toContain('compaction keeps one record per key and the log needs every one');
  });

  it('refuses a topic with unclean leader election', async () => {
    const topic = await madeElsewhere({ 'unclean.leader.election.enable': 'true' });
    const error = await refusal(open(topic));
    expect(error.refusals).toEqual([expect.objectContaining({ subject: topic, setting: 'unclean.leader.election.enable', found: 'true' })]);
    expect(error.message).toContain('--add-config unclean.leader.election.enable=false');
  });

  it('refuses fewer replicas and a lower min.insync.replicas than the settings require, on the events topic and the lease groups topic', async () => {
    const topic = await madeElsewhere({});
    const error = await refusal(open(topic, { durability: { replicationFactor: 2, minInsync: 2 } }));
    expect(error.refusals.map((found) => `${found.subject} ${found.setting} ${found.found}`)).toEqual([
      `${topic} replication factor 1`,
      `${topic} min.insync.replicas 1`,
      '__consumer_offsets replication factor 1',
      '__consumer_offsets min.insync.replicas 1',
    ]);
    expect(error.message).toContain('the cluster has 1 broker(s), so add brokers or set SHOAL_KAFKA_REPLICATION_FACTOR=1 if fewer copies are really meant');
    expect(error.message).toContain('set that to 2 on every broker');
  });

  it('will not create the events topic with more replicas than there are brokers', async () => {
    const topic = freshTopic();
    await expect(open(topic, { durability: { replicationFactor: 3 } })).rejects.toThrow(
      `cannot create ${topic} with 3 replicas on 1 broker(s): add brokers, or set SHOAL_KAFKA_REPLICATION_FACTOR=1 if fewer copies are really meant`,
    );
    expect(await admin.listTopics()).not.toContain(topic);
  });
});
