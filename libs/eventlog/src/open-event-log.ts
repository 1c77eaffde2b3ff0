/** Picks the log from the environment: Kafka when KAFKA_BROKERS is set, else the embedded log. */
import { join } from 'node:path';
import type { EventLog } from './port';
import { EmbeddedEventLog } from './embedded/embedded-event-log';
import { KafkaEventLog } from './kafka/kafka-event-log';

export interface LogSettings {
  readonly brokers: readonly string[];
  readonly topic: string;
  readonly dataDir: string;
}

export const logSettingsFromEnv = (env: NodeJS.ProcessEnv): LogSettings => ({
  brokers: (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean),
  topic: `${env.SHOAL_TOPIC_PREFIX || 'shoal'}.events`,
  dataDir: env.SHOAL_DATA_DIR || '.shoal',
});

export const openEventLog = async (env: NodeJS.ProcessEnv, clientId = 'shoal'): Promise<EventLog> => {
  const settings = logSettingsFromEnv(env);
  if (settings.brokers.length > 0) {
    return KafkaEventLog.open({ brokers: settings.brokers, topic: settings.topic, clientId });
  }
  return EmbeddedEventLog.open({ dir: join(settings.dataDir, 'log') });
};
