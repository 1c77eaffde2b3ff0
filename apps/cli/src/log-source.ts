/** Which log the CLI reads: Kafka when KAFKA_BROKERS is set, else the embedded log. */
import { openEventLog } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';

export const withLog = async <T>(use: (log: EventLog) => Promise<T>): Promise<T> => {
  const log = await openEventLog(process.env);
  try {
    return await use(log);
  } finally {
    await log.close();
  }
};
