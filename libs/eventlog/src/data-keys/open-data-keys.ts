/**
 * The data-key store beside a log: a compacted topic beside a Kafka log's topic
 * (`<prefix>.secret-keys`, reached as the log is), files in the data directory beside the
 * embedded log.
 */
import { join } from 'node:path';
import type { EventLog } from '../port';
import { KafkaEventLog } from '../kafka/kafka-event-log';
import type { DataKeyStore } from './data-key-store';
import { FileDataKeys } from './file-data-keys';
import { KafkaDataKeys } from './kafka-data-keys';

export const dataKeyTopicOf = (eventsTopic: string): string => `${eventsTopic.replace(/\.events$/, '')}.secret-keys`;

export const openDataKeyStore = async (log: EventLog, dataDir: string): Promise<DataKeyStore> => {
  if (log instanceof KafkaEventLog) {
    const { brokers, connection, durability } = log.openedWith;
    return KafkaDataKeys.open({
      brokers,
      topic: dataKeyTopicOf(log.topic),
      clientId: 'shoal-secret-keys',
      ...(durability ? { durability } : {}),
      ...(connection ? { connection } : {}),
    });
  }
  return FileDataKeys.open(join(dataDir, 'secret-keys'));
};
