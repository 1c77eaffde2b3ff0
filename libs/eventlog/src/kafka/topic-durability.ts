/**
 * What a topic must be for Shoal to keep its history on it, decided from what the brokers
 * report (pure: facts in, refusals out; topic-check.ts gathers the facts at start-up).
 *
 * The events topic is the store, kept forever: infinite retention (time and size), never
 * compacted (compaction keeps one record per key; the log needs every record), replicated
 * at least `replicationFactor` times with `min.insync.replicas` at least `minInsync`, and no
 * unclean leader election (an out-of-sync replica made leader drops acknowledged writes).
 * The lease groups live on the group coordinator's topic (`__consumer_offsets`): it keeps
 * the latest state per group, so it is compacted, and replicated like the log.
 * Producers write with acks=all and idempotence, so an acknowledged write is on every
 * in-sync replica and a retried one is written once.
 */

/** How many copies the cluster's settings require. */
export interface Durability {
  /** Replicas of each partition (SHOAL_KAFKA_REPLICATION_FACTOR). */
  readonly replicationFactor: number;
  /** The topic's min.insync.replicas (SHOAL_KAFKA_MIN_INSYNC). */
  readonly minInsync: number;
}

/** What the operator set; unset values take the defaults for the cluster's size. */
export interface DurabilitySettings {
  readonly replicationFactor?: number;
  readonly minInsync?: number;
}

/** A topic as the brokers describe it. */
export interface TopicFacts {
  readonly topic: string;
  /** Its effective configuration (describeConfigs), by name. */
  readonly config: Readonly<Record<string, string | undefined>>;
  /** The replica count of each of its partitions. */
  readonly replicas: readonly number[];
  /** Brokers in the cluster. */
  readonly brokers: number;
}

/** How a producer writes. */
export interface ProducerFacts {
  /** -1 is all in-sync replicas. */
  readonly acks: number;
  readonly idempotent: boolean;
}

/** One thing wrong, and what to change. */
export interface Refusal {
  readonly subject: string;
  readonly setting: string;
  readonly found: string;
  readonly fix: string;
}

/** 3 and 2 where there is more than one broker; 1 and 1 on a single broker. */
export const defaultDurability = (brokers: number): Durability => (brokers > 1 ? { replicationFactor: 3, minInsync: 2 } : { replicationFactor: 1, minInsync: 1 });

/** The settings over the defaults; throws when they cannot both hold (min.insync above the replicas: every write would fail). */
export const requiredDurability = (brokers: number, settings: DurabilitySettings = {}): Durability => {
  const defaults = defaultDurability(brokers);
  const required = {
    replicationFactor: settings.replicationFactor ?? defaults.replicationFactor,
    minInsync: settings.minInsync ?? Math.min(defaults.minInsync, settings.replicationFactor ?? defaults.minInsync),
  };
  if (required.minInsync > required.replicationFactor) {
    throw new Error(
      `SHOAL_KAFKA_MIN_INSYNC=${required.minInsync} is above SHOAL_KAFKA_REPLICATION_FACTOR=${required.replicationFactor}: ` +
        'no write could reach that many in-sync replicas; lower SHOAL_KAFKA_MIN_INSYNC or raise SHOAL_KAFKA_REPLICATION_FACTOR',
    );
  }
  return required;
};

/** The topic configuration Shoal creates the events topic with. */
export const logTopicConfig = (required: Durability): Record<string, string> => ({
  'retention.ms': '-1',
  'retention.bytes': '-1',
  'cleanup.policy': 'delete',
  'min.insync.replicas': String(required.minInsync),
  'unclean.leader.election.enable': 'false',
});

const policies = (facts: TopicFacts): string[] =>
  (facts.config['cleanup.policy'] ?? 'delete')
    .split(',')
    .map((policy) => policy.trim())
    .filter(Boolean);

const alterCommand = (topic: string, setting: string): string => `kafka-configs.sh --alter --entity-type topics --entity-name ${topic} --add-config ${setting}`;

/** Replication, min.insync.replicas and unclean leader election: what every topic Shoal relies on needs. */
const replicationRefusals = (facts: TopicFacts, required: Durability): Refusal[] => {
  const refusals: Refusal[] = [];
  const { topic } = facts;
  const fewest = facts.replicas.length === 0 ? 0 : Math.min(...facts.replicas);
  if (fewest < required.replicationFactor) {
    const room =
      facts.brokers < required.replicationFactor
        ? `the cluster has ${facts.brokers} broker(s), so add brokers or set SHOAL_KAFKA_REPLICATION_FACTOR=${Math.max(1, facts.brokers)} if fewer copies are really meant`
        : `reassign its partitions onto ${required.replicationFactor} brokers (kafka-reassign-partitions.sh)`;
    refusals.push({
      subject: topic,
      setting: 'replication factor',
      found: String(fewest),
      fix: `needs at least ${required.replicationFactor} replicas per partition: ${room}`,
    });
  }
  const minInsync = Number(facts.config['min.insync.replicas'] ?? '1');
  if (!(minInsync >= required.minInsync)) {
    refusals.push({
      subject: topic,
      setting: 'min.insync.replicas',
      found: facts.config['min.insync.replicas'] ?? '(unset)',
      fix: `needs at least ${required.minInsync}: ${alterCommand(topic, `min.insync.replicas=${required.minInsync}`)} (or set SHOAL_KAFKA_MIN_INSYNC if fewer are really meant)`,
    });
  }
  if (facts.config['unclean.leader.election.enable'] === 'true') {
    refusals.push({
      subject: topic,
      setting: 'unclean.leader.election.enable',
      found: 'true',
      fix: `an out-of-sync replica made leader loses acknowledged writes: ${alterCommand(topic, 'unclean.leader.election.enable=false')}`,
    });
  }
  return refusals;
};

/** What keeps the events topic from holding the log forever, or on enough replicas. */
export const logTopicRefusals = (facts: TopicFacts, required: Durability): Refusal[] => {
  const refusals: Refusal[] = [];
  const { topic } = facts;
  for (const setting of ['retention.ms', 'retention.bytes'] as const) {
    const value = facts.config[setting];
    if (value !== undefined && value !== '-1') {
      refusals.push({ subject: topic, setting, found: value, fix: `the log is kept forever, so it must be -1: ${alterCommand(topic, `${setting}=-1`)}` });
    }
  }
  if (policies(facts).includes('compact')) {
    refusals.push({
      subject: topic,
      setting: 'cleanup.policy',
      found: facts.config['cleanup.policy'] ?? '',
      fix: `compaction keeps one record per key and the log needs every one: ${alterCommand(topic, 'cleanup.policy=delete')} (with retention.ms=-1 and retention.bytes=-1 nothing is deleted)`,
    });
  }
  return [...refusals, ...replicationRefusals(facts, required)];
};

/** What keeps the group coordinator's topic, which holds the lease groups, from keeping their latest state. */
export const leaseTopicRefusals = (facts: TopicFacts, required: Durability): Refusal[] => {
  const refusals = replicationRefusals(facts, required).map((refusal) =>
    refusal.setting === 'replication factor'
      ? { ...refusal, fix: `${refusal.fix}; the broker creates ${facts.topic} with offsets.topic.replication.factor, so set that to ${required.replicationFactor} on every broker` }
      : refusal,
  );
  if (!policies(facts).includes('compact')) {
    refusals.push({
      subject: facts.topic,
      setting: 'cleanup.policy',
      found: facts.config['cleanup.policy'] ?? '(unset)',
      fix: `the group state is the latest record per key, kept by compaction: ${alterCommand(facts.topic, 'cleanup.policy=compact')}`,
    });
  }
  return refusals;
};

/** A producer that could lose an acknowledged write, or write a retried batch twice. */
export const producerRefusals = (producer: ProducerFacts): Refusal[] => [
  ...(producer.acks === -1 ? [] : [{ subject: 'producer', setting: 'acks', found: String(producer.acks), fix: 'writes must wait for every in-sync replica: acks=-1 (all)' }]),
  ...(producer.idempotent ? [] : [{ subject: 'producer', setting: 'idempotence', found: 'off', fix: 'a retried batch must be written once: idempotent=true' }]),
];

/** One message for all of them: what was found, and what to change. */
export const refusalMessage = (refusals: readonly Refusal[]): string =>
  [
    `Shoal will not run on this Kafka: ${refusals.length} setting(s) could lose the log's history`,
    ...refusals.map((refusal) => `  - ${refusal.subject}: ${refusal.setting} is ${refusal.found}; ${refusal.fix}`),
  ].join('\n');

/** The start-up line: what the log runs with. */
export const durabilityLine = (producer: ProducerFacts, facts: TopicFacts): string =>
  `acks=${producer.acks === -1 ? 'all' : producer.acks}, idempotent=${producer.idempotent}; ` +
  `replicas ${facts.replicas.length === 0 ? 0 : Math.min(...facts.replicas)}, min.insync.replicas ${facts.config['min.insync.replicas'] ?? '1'}, ` +
  `retention forever, unclean election off, ${facts.brokers} broker(s)`;
