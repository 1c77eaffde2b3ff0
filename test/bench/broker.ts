/** The broker a benchmark uses: KAFKA_BROKERS when set, else a local KRaft broker it starts and stops. */
import { LocalKafkaBroker } from '../../infra/kafka/broker';

export interface BenchBroker {
  readonly brokers: string[];
  stop(): Promise<void>;
}

export const benchBroker = async (): Promise<BenchBroker> => {
  const given = (process.env.KAFKA_BROKERS ?? '').split(',').map((b) => b.trim()).filter(Boolean);
  if (given.length > 0) return { brokers: given, stop: async () => undefined };
  process.stderr.write('starting a local Kafka broker (set KAFKA_BROKERS to use another)…\n');
  const broker = await LocalKafkaBroker.start();
  return { brokers: broker.brokers, stop: () => broker.stop() };
};
