/**
 * The log a command reads scattered records from: on Kafka, a log of its own whose fetches
 * bring back one record batch (STORY_FETCH_BYTES), not the 16 MiB after a record that a
 * replay asks for; on the embedded log, the same log.
 */
import { KafkaEventLog, logSettingsFromEnv } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { STORY_FETCH_BYTES } from '@shoal/runtime';

export const withPointReads = async <T>(log: EventLog, use: (reads: EventLog) => Promise<T>): Promise<T> => {
  const settings = logSettingsFromEnv(process.env);
  if (settings.brokers.length === 0) return use(log);
  const reads = await KafkaEventLog.open({
    brokers: settings.brokers,
    topic: settings.topic,
    clientId: 'shoal-point-reads',
    durability: settings.durability,
    fetchMaxBytes: STORY_FETCH_BYTES,
    ...(settings.connection ? { connection: settings.connection } : {}),
  });
  try {
    return await use(reads);
  } finally {
    await reads.close();
  }
};
