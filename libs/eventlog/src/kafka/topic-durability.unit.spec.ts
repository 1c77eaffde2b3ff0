import {
  defaultDurability,
  durabilityLine,
  leaseTopicRefusals,
  logTopicConfig,
  logTopicRefusals,
  producerRefusals,
  refusalMessage,
  requiredDurability,
} from './topic-durability';
import type { TopicFacts } from './topic-durability';

const CLUSTER = { replicationFactor: 3, minInsync: 2 };

/** The events topic as Shoal creates it on three brokers. */
const events = (change: { config?: Record<string, string>; replicas?: number[]; brokers?: number } = {}): TopicFacts => ({
  topic: 'shoal.events',
  config: { ...logTopicConfig(CLUSTER), ...change.config },
  replicas: change.replicas ?? [3],
  brokers: change.brokers ?? 3,
});

const groups = (change: { config?: Record<string, string>; replicas?: number[] } = {}): TopicFacts => ({
  topic: '__consumer_offsets',
  config: { 'cleanup.policy': 'compact', 'min.insync.replicas': '2', 'unclean.leader.election.enable': 'false', ...change.config },
  replicas: change.replicas ?? [3, 3, 3],
  brokers: 3,
});

describe('topic durability', () => {
  it('requires 3 replicas and min.insync.replicas 2 on more than one broker, 1 and 1 on one; the settings come first', () => {
    expect(defaultDurability(1)).toEqual({ replicationFactor: 1, minInsync: 1 });
    expect(defaultDurability(2)).toEqual(CLUSTER);
    expect(defaultDurability(5)).toEqual(CLUSTER);
    expect(requiredDurability(3, { replicationFactor: 5, minInsync: 3 })).toEqual({ replicationFactor: 5, minInsync: 3 });
    // Fewer replicas set without a min.insync: the default is not allowed above them.
    expect(requiredDurability(3, { replicationFactor: 1 })).toEqual({ replicationFactor: 1, minInsync: 1 });
    expect(() => requiredDurability(1, { minInsync: 2 })).toThrow(
      'SHOAL_KAFKA_MIN_INSYNC=2 is above SHOAL_KAFKA_REPLICATION_FACTOR=1: no write could reach that many in-sync replicas',
    );
  });

  it('accepts the events topic as Shoal creates it', () => {
    expect(logTopicRefusals(events(), CLUSTER)).toEqual([]);
    expect(logTopicRefusals(events({ replicas: [1], brokers: 1, config: { 'min.insync.replicas': '1' } }), defaultDurability(1))).toEqual([]);
  });

  it('refuses finite retention, by time or by size, saying to set it to -1', () => {
    expect(logTopicRefusals(events({ config: { 'retention.ms': '604800000' } }), CLUSTER)).toEqual([
      expect.objectContaining({ setting: 'retention.ms', found: '604800000', fix: expect.stringContaining('--add-config retention.ms=-1') }),
    ]);
    expect(logTopicRefusals(events({ config: { 'retention.bytes': '1073741824' } }), CLUSTER)).toEqual([
      expect.objectContaining({ setting: 'retention.bytes', found: '1073741824', fix: expect.stringContaining('retention.bytes=-1') }),
    ]);
  });

  it('refuses compaction, alone or with delete', () => {
    for (const policy of ['compact', 'delete,compact', 'compact, delete']) {
      expect(logTopicRefusals(events({ config: { 'cleanup.policy': policy } }), CLUSTER)).toEqual([
        expect.objectContaining({ setting: 'cleanup.policy', found: policy, fix: expect.stringContaining('cleanup.policy=delete') }),
      ]);
    }
  });

  it('refuses fewer replicas than required, on any partition, and says whether brokers are missing', () => {
    expect(logTopicRefusals(events({ replicas: [3, 2] }), CLUSTER)).toEqual([
      expect.objectContaining({ setting: 'replication factor', found: '2', fix: expect.stringContaining('kafka-reassign-partitions.sh') }),
    ]);
    expect(logTopicRefusals(events({ replicas: [1], brokers: 1, config: { 'min.insync.replicas': '2' } }), CLUSTER)).toEqual([
      expect.objectContaining({ setting: 'replication factor', found: '1', fix: expect.stringContaining('the cluster has 1 broker(s), so add brokers or set SHOAL_KAFKA_REPLICATION_FACTOR=1') }),
    ]);
    expect(logTopicRefusals(events({ replicas: [] }), CLUSTER)).toEqual([expect.objectContaining({ setting: 'replication factor', found: '0' })]);
  });

  it('refuses a min.insync.replicas below the required one, or none', () => {
    expect(logTopicRefusals(events({ config: { 'min.insync.replicas': '1' } }), CLUSTER)).toEqual([
      expect.objectContaining({ setting: 'min.insync.replicas', found: '1', fix: expect.stringContaining('min.insync.replicas=2') }),
    ]);
    const unset: TopicFacts = { ...events(), config: { 'retention.ms': '-1', 'retention.bytes': '-1' } };
    expect(logTopicRefusals(unset, CLUSTER)).toEqual([expect.objectContaining({ setting: 'min.insync.replicas', found: '(unset)' })]);
  });

  it('refuses unclean leader election', () => {
    expect(logTopicRefusals(events({ config: { 'unclean.leader.election.enable': 'true' } }), CLUSTER)).toEqual([
      expect.objectContaining({ setting: 'unclean.leader.election.enable', found: 'true', fix: expect.stringContaining('unclean.leader.election.enable=false') }),
    ]);
  });

  it('lists every problem at once', () => {
    const bad = events({ replicas: [1], config: { 'retention.ms': '1000', 'cleanup.policy': 'compact', 'min.insync.replicas': '1', 'unclean.leader.election.enable': 'true' } });
    expect(logTopicRefusals(bad, CLUSTER).map((refusal) => refusal.setting)).toEqual([
      'retention.ms',
      'cleanup.policy',
      'replication factor',
      'min.insync.replicas',
      'unclean.leader.election.enable',
    ]);
  });

  it('wants the lease groups topic compacted and replicated like the log', () => {
    expect(leaseTopicRefusals(groups(), CLUSTER)).toEqual([]);
    expect(leaseTopicRefusals(groups({ config: { 'cleanup.policy': 'delete' } }), CLUSTER)).toEqual([
      expect.objectContaining({ subject: '__consumer_offsets', setting: 'cleanup.policy', fix: expect.stringContaining('cleanup.policy=compact') }),
    ]);
    expect(leaseTopicRefusals(groups({ replicas: [3, 1, 3] }), CLUSTER)).toEqual([
      expect.objectContaining({ setting: 'replication factor', found: '1', fix: expect.stringContaining('offsets.topic.replication.factor, so set that to 3 on every broker') }),
    ]);
    expect(leaseTopicRefusals(groups({ config: { 'min.insync.replicas': '1' } }), CLUSTER)).toEqual([expect.objectContaining({ setting: 'min.insync.replicas' })]);
  });

  it('wants producers to wait for all in-sync replicas, idempotently', () => {
    expect(producerRefusals({ acks: -1, idempotent: true })).toEqual([]);
    expect(producerRefusals({ acks: 1, idempotent: false }).map((refusal) => [refusal.setting, refusal.found])).toEqual([
      ['acks', '1'],
      ['idempotence', 'off'],
    ]);
  });

  it('says what was found and what to change, in one message', () => {
    const message = refusalMessage(logTopicRefusals(events({ config: { 'retention.ms': '1000' } }), CLUSTER));
    expect(message).toBe(
      "Shoal will not run on this Kafka: 1 setting(s) could lose the log's history\n" +
        '  - shoal.events: retention.ms is 1000; the log is kept forever, so it must be -1: ' +
        'kafka-configs.sh --alter --entity-type topics --entity-name shoal.events --add-config retention.ms=-1',
    );
  });

  it('states what the log runs with', () => {
    expect(durabilityLine({ acks: -1, idempotent: true }, events())).toBe(
      'acks=all, idempotent=true; replicas 3, min.insync.replicas 2, retention forever, unclean election off, 3 broker(s)',
    );
  });
});
