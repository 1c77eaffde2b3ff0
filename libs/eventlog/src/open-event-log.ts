/** Picks the log from the environment: Kafka when KAFKA_BROKERS is set, else the embedded log. */
import { join } from 'node:path';
import type { EventLog } from './port';
import { EmbeddedEventLog } from './embedded/embedded-event-log';
import { KafkaEventLog } from './kafka/kafka-event-log';

export interface LogSettings {
  /** From KAFKA_BROKERS (comma separated); empty means the embedded log. */
  readonly brokers: readonly string[];
  /** `${SHOAL_TOPIC_PREFIX}.events`, default `shoal.events`. */
  readonly topic: string;
  /** SHOAL_DATA_DIR, default `.shoal`; the embedded log lives in `<dataDir>/log`. */
  readonly dataDir: string;
}

export const logSettingsFromEnv = (env: NodeJS.ProcessEnv): LogSettings => ({
  brokers: (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean),
  topic: `${env.SHOAL_TOPIC_PREFIX?.trim() || 'shoal'}.events`,
  dataDir: env.SHOAL_DATA_DIR?.trim() || '.shoal',
});

export const openEventLog = async (env: NodeJS.ProcessEnv = process.env, clientId = 'shoal'): Promise<EventLog> => {
  const settings = logSettingsFromEnv(env);
  if (settings.brokers.length > 0) {
    return KafkaEventLog.open({ brokers: settings.brokers, topic: settings.topic, clientId });
  }
  return EmbeddedEventLog.open({ dir: join(settings.dataDir, 'log') });
};
