/** Picks the log from the environment: Kafka when KAFKA_BROKERS is set, else the embedded log. */
import { join } from 'node:path';
import { shoalSettings } from '@shoal/config';
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
    ...connectionFromEnv(env),
  };
};

export const openEventLog = async (env: NodeJS.ProcessEnv = process.env, clientId = 'shoal'): Promise<EventLog> => {
  const settings = logSettingsFromEnv(env);
  if (settings.brokers.length > 0) {
    return KafkaEventLog.open({ brokers: settings.brokers, topic: settings.topic, clientId, durability: settings.durability, leaseTimeoutMs: settings.leaseTimeoutMs, ...(settings.connection ? { connection: settings.connection } : {}) });
  }
  return EmbeddedEventLog.open({ dir: join(settings.dataDir, 'log') });
};
