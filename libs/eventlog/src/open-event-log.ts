/** Picks the log from the environment: Kafka when KAFKA_BROKERS is set, else the embedded log. */
import { join } from 'node:path';
import { firstPartition, isOnePartition, parsePartitions, shoalSettings } from '@shoal/config';
import type { PartitionSelection } from '@shoal/config';
import type { EventLog } from './port';
import { EmbeddedEventLog } from './embedded/embedded-event-log';
import { KafkaEventLog } from './kafka/kafka-event-log';
import { kafkaConnectionFromEnv } from './kafka/connection-settings';
import type { KafkaConnectionSettings } from './kafka/connection-settings';
import type { DurabilitySettings } from './kafka/topic-durability';

export interface LogSettings {
  /** From KAFKA_BROKERS (comma separated); empty means the embedded log. */
  readonly brokers: readonly string[];
  /** `${SHOAL_TOPIC_PREFIX}.events`, default `shoal.events`. */
  readonly topic: string;
  /** SHOAL_DATA_DIR, default `.shoal`; the embedded log lives in `<dataDir>/log`. */
  readonly dataDir: string;
  /**
   * SHOAL_KAFKA_REPLICATION_FACTOR and SHOAL_KAFKA_MIN_INSYNC: what the topics must have
   * (unset: 3 and 2 on more than one broker, 1 and 1 on one); start-up refuses less.
   */
  readonly durability: DurabilitySettings;
  /** SHOAL_KAFKA_SSL_* and SHOAL_KAFKA_SASL_* (kafka/connection-settings.ts); none: PLAINTEXT. */
  readonly connection?: KafkaConnectionSettings;
  /** SHOAL_PARTITIONS: the partitions (clusters) the process serves; its log is the first's. */
  readonly partitions: PartitionSelection;
  /** SHOAL_LEASE_TIMEOUT_MS: how long a lease's holder may go unheard before a standby takes over (kafka/group-timing.ts). */
  readonly leaseTimeoutMs: number;
}

const durabilityFromEnv = (env: NodeJS.ProcessEnv): DurabilitySettings => {
  const { SHOAL_KAFKA_REPLICATION_FACTOR: replicationFactor, SHOAL_KAFKA_MIN_INSYNC: minInsync } = shoalSettings(env);
  return { ...(replicationFactor === undefined ? {} : { replicationFactor }), ...(minInsync === undefined ? {} : { minInsync }) };
};

const connectionFromEnv = (env: NodeJS.ProcessEnv): { connection?: KafkaConnectionSettings } => {
  const connection = kafkaConnectionFromEnv(env);
  return connection.ssl || connection.sasl ? { connection } : {};
};

export const logSettingsFromEnv = (env: NodeJS.ProcessEnv): LogSettings => {
  const settings = shoalSettings(env);
  return {
    brokers: settings.KAFKA_BROKERS,
    topic: `${settings.SHOAL_TOPIC_PREFIX}.events`,
    dataDir: settings.SHOAL_DATA_DIR,
    durability: durabilityFromEnv(env),
    leaseTimeoutMs: settings.SHOAL_LEASE_TIMEOUT_MS,
    partitions: partitionsOf(settings.SHOAL_PARTITIONS),
    ...connectionFromEnv(env),
  };
};

/** SHOAL_PARTITIONS as shoalSettings validated it. */
const partitionsOf = (text: string): PartitionSelection => {
  const parsed = parsePartitions(text);
  if ('problem' in parsed) throw new Error(`SHOAL_PARTITIONS: ${parsed.problem}`);
  return parsed.selection;
};

export interface OpenOptions {
  /** Whether the process may serve several partitions (a component's); otherwise SHOAL_PARTITIONS must name one. */
  readonly manyPartitions?: boolean;
}

/**
 * The log of the first partition SHOAL_PARTITIONS names (a topic it creates has as many
 * partitions as the highest named needs); a component that serves several asks it for the
 * others' (KafkaEventLog.partitionLog).
 */
export const openEventLog = async (env: NodeJS.ProcessEnv = process.env, clientId = 'shoal', options: OpenOptions = {}): Promise<EventLog> => {
  const settings = logSettingsFromEnv(env);
  const { partitions } = settings;
  const named = `SHOAL_PARTITIONS=${shoalSettings(env).SHOAL_PARTITIONS}`;
  if (!options.manyPartitions && !isOnePartition(partitions)) {
    throw new Error(`${named}: ${clientId} serves one cluster, so one partition: name one, and run one ${clientId} per partition`);
  }
  const partition = firstPartition(partitions);
  if (settings.brokers.length > 0) {
    return KafkaEventLog.open({
      brokers: settings.brokers,
      topic: settings.topic,
      partition,
      partitions: partitions === 'all' ? 1 : Math.max(...partitions) + 1,
      clientId,
      durability: settings.durability,
      leaseTimeoutMs: settings.leaseTimeoutMs,
      ...(settings.connection ? { connection: settings.connection } : {}),
    });
  }
  if (partitions !== 'all' && (partitions.length > 1 || partition !== 0)) throw new Error(`${named}: the embedded log has one partition, 0; serving others needs Kafka (KAFKA_BROKERS)`);
  return EmbeddedEventLog.open({ dir: join(settings.dataDir, 'log') });
};
