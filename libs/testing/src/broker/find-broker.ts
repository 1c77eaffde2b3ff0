/** Finds (or starts) the Kafka broker a test run uses: see chooseBroker for the order. */
import { Kafka, logLevel } from 'kafkajs';
import { KAFKA_VERSION, LocalKafkaBroker, javaRuns } from '../../../../infra/kafka/broker';
import { chooseBroker } from './choose-broker';
import type { BrokerKind } from './choose-broker';
import { dockerAnswers } from './docker-probe';
import { KAFKA_IMAGE, startKafkaContainer } from './kafka-container';
import { LocalKafkaCluster } from './kafka-cluster';

export interface TestBroker {
  readonly kind: BrokerKind;
  /** Bootstrap servers, `host:port`. */
  readonly brokers: string[];
  /** One line for the test output: what it is, where, how long it took. */
  readonly description: string;
  /** Stops what findTestBroker started (nothing for KAFKA_BROKERS). */
  stop(): Promise<void>;
}

/** Does a Kafka at `brokers` answer `describeCluster` within `timeoutMs`? */
export const kafkaAnswers = async (brokers: string[], timeoutMs: number): Promise<boolean> => {
  const kafka = new Kafka({
    clientId: 'shoal-broker-probe',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2_000,
    requestTimeout: 3_000,
    retry: { retries: 0 },
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const admin = kafka.admin();
    try {
      await admin.connect();
      const cluster = await admin.describeCluster();
      if (cluster.brokers.length > 0) return true;
    } catch {
      // not (yet) answering
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    await new Promise((done) => setTimeout(done, 500));
  }
  return false;
};

export const findTestBroker = async (env: NodeJS.ProcessEnv = process.env): Promise<TestBroker> => {
  const started = Date.now();
  const took = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const kafkaBrokersEnv = env.KAFKA_BROKERS;
  const envSet = kafkaBrokersEnv !== undefined && kafkaBrokersEnv.trim() !== '';
  const engine = env.SHOAL_TEST_ENGINE?.trim();
  // Each fact is gathered only when the ones before it did not decide.
  const engineUp = !envSet && engine !== undefined && engine !== '' && engine !== 'none' && (await dockerAnswers({ DOCKER_HOST: engine }));
  const kind = chooseBroker({ kafkaBrokersEnv, engineAnswers: engineUp, localAsked: env.SHOAL_TEST_BROKER === 'local', clusterAsked: env.SHOAL_TEST_BROKER === 'cluster3', javaPresent: envSet || javaRuns() });
  switch (kind) {
    case 'env': {
      const brokers = kafkaBrokersEnv!
        .split(',')
        .map((broker) => broker.trim())
        .filter(Boolean);
      if (!(await kafkaAnswers(brokers, 15_000))) {
        throw new Error(
          `KAFKA_BROKERS=${kafkaBrokersEnv} does not answer (no describeCluster reply from ${brokers.join(', ')} within 15 s): ` +
            'start that broker, or unset KAFKA_BROKERS to let the tests start their own',
        );
      }
      return { kind, brokers, description: `KAFKA_BROKERS at ${brokers.join(',')} (answered in ${took()})`, stop: async () => undefined };
    }
    case 'testcontainers': {
      const container = await startKafkaContainer(env);
      return {
        kind,
        brokers: container.brokers,
        description: `${KAFKA_IMAGE} (KRaft) container on ${engine} at ${container.brokers.join(',')} (${container.built ? 'image built and ' : ''}started in ${took()})`,
        stop: () => container.stop(),
      };
    }
    case 'local': {
      const broker = await LocalKafkaBroker.start();
      return {
        kind,
        brokers: broker.brokers,
        description: `local KRaft ${KAFKA_VERSION} at ${broker.brokers.join(',')} (started in ${took()}; log ${broker.logFile})`,
        stop: () => broker.stop(),
      };
    }
    case 'cluster3': {
      const cluster = await LocalKafkaCluster.start({ nodes: 3 });
      return {
        kind,
        brokers: cluster.brokers,
        description: `local KRaft ${KAFKA_VERSION} cluster of 3 nodes at ${cluster.brokers.join(',')} (started in ${took()}; logs in ${cluster.dataDir}/node-*/broker.log)`,
        stop: () => cluster.stop(),
      };
    }
    default: {
      const exhaustive: never = kind;
      throw new Error(`unknown broker kind ${String(exhaustive)}`);
    }
  }
};
