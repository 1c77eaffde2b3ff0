/** Finds (or starts) the Kafka broker a test run uses. */
import { Kafka, logLevel } from 'kafkajs';
import { LocalKafkaBroker } from '../../../../infra/kafka/broker';
import { chooseBroker } from './choose-broker';
import type { BrokerKind } from './choose-broker';
import type * as TestcontainersKafka from '@testcontainers/kafka';
import { dockerAnswers } from './docker-probe';

export interface TestBroker {
  readonly kind: BrokerKind;
  readonly brokers: string[];
  readonly description: string;
  stop(): Promise<void>;
}

const answers = async (brokers: string[], timeoutMs: number): Promise<boolean> => {
  const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING, connectionTimeout: 2_000, retry: { retries: 0 } }).admin();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      await admin.connect();
      await admin.describeCluster();
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
  return false;
};

export const findTestBroker = async (env: NodeJS.ProcessEnv = process.env): Promise<TestBroker> => {
  const started = Date.now();
  const took = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const kind = chooseBroker({ kafkaBrokersEnv: env.KAFKA_BROKERS, dockerAnswers: env.KAFKA_BROKERS ? false : await dockerAnswers(env) });
  switch (kind) {
    case 'env': {
      const brokers = env.KAFKA_BROKERS!.split(',').map((b) => b.trim()).filter(Boolean);
      if (!(await answers(brokers, 15_000))) {
        throw new Error(`KAFKA_BROKERS=${env.KAFKA_BROKERS} does not answer: start that broker, or unset KAFKA_BROKERS to let the tests start their own`);
      }
      return { kind, brokers, description: `KAFKA_BROKERS ${brokers.join(',')}`, stop: async () => undefined };
    }
    case 'testcontainers': {
      // Loaded only here: nothing of Testcontainers runs where no Docker engine answers.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { KafkaContainer } = require('@testcontainers/kafka') as typeof TestcontainersKafka;
      const container = await new KafkaContainer('confluentinc/cp-kafka:7.7.1').withKraft().start();
      const brokers = [`${container.getHost()}:${container.getMappedPort(9093)}`];
      return { kind, brokers, description: `Testcontainers cp-kafka 7.7.1 at ${brokers[0]} (started in ${took()})`, stop: async () => void (await container.stop()) };
    }
    case 'local': {
      const broker = await LocalKafkaBroker.start();
      return {
        kind,
        brokers: broker.brokers,
        description: `local KRaft broker at ${broker.brokers[0]} (started in ${took()}, logs in ${broker.logFile})`,
        stop: () => broker.stop(),
      };
    }
    default: {
      const _exhaustive: never = kind;
      throw new Error(`unknown broker kind ${String(_exhaustive)}`);
    }
  }
};
