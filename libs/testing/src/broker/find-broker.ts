/** Finds (or starts) the Kafka broker a test run uses: see chooseBroker for the order. */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import type { KafkaConfig } from 'kafkajs';
import { KAFKA_VERSION, javaRuns } from '../../../../infra/kafka/broker';
import { SecureKafkaBroker } from '../../../../infra/kafka/secure-broker';
import { chooseBroker } from './choose-broker';
import type { BrokerKind } from './choose-broker';
import { dockerAnswers } from './docker-probe';
import { KAFKA_IMAGE, startKafkaContainer } from './kafka-container';
import { LocalKafkaCluster } from './kafka-cluster';

export interface TestBroker {
  readonly kind: BrokerKind;
  /** Bootstrap servers, `host:port`: the PLAINTEXT listener, for the tests' own clients. */
  readonly brokers: string[];
  /**
   * A Shoal process's environment to reach the broker through its SASL_SSL listener only
   * (mutual TLS, SCRAM-SHA-512): what the e2e suite's processes run with
   * (ShoalProcesses.onKafka). Absent for a broker given by KAFKA_BROKERS or the 3-node cluster.
   */
  readonly processEnv?: Record<string, string>;
  /** One line for the test output: what it is, where, how long it took. */
  readonly description: string;
  /** Stops what findTestBroker started (nothing for KAFKA_BROKERS). */
  stop(): Promise<void>;
}

/** Does a Kafka at `brokers` answer `describeCluster` within `timeoutMs` (through TLS and SASL, with `secure`)? */
export const kafkaAnswers = async (brokers: string[], timeoutMs: number, secure?: Pick<KafkaConfig, 'ssl' | 'sasl'>): Promise<boolean> => {
  const kafka = new Kafka({
    clientId: 'shoal-broker-probe',
    brokers,
    ...secure,
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

/** Throws unless the broker answers through its SASL_SSL listener as a process with `processEnv` would reach it. */
const checkSaslSsl = async (processEnv: Record<string, string>): Promise<void> => {
  const file = (name: string): string => readFileSync(processEnv[name]!, 'utf8');
  const secure: Pick<KafkaConfig, 'ssl' | 'sasl'> = {
    ssl: { ca: [file('SHOAL_KAFKA_SSL_CA')], cert: file('SHOAL_KAFKA_SSL_CERT'), key: file('SHOAL_KAFKA_SSL_KEY') },
    sasl: { mechanism: 'scram-sha-512', username: processEnv.SHOAL_KAFKA_SASL_USERNAME!, password: file('SHOAL_KAFKA_SASL_PASSWORD_FILE').trim() },
  };
  if (!(await kafkaAnswers([processEnv.KAFKA_BROKERS!], 30_000, secure))) throw new Error(`the test broker's SASL_SSL listener at ${processEnv.KAFKA_BROKERS} does not answer a client with a certificate and a SCRAM-SHA-512 password`);
};

/** The SCRAM-SHA-512 user the e2e suite's processes reach the broker as; a test broker's password, made for each run. */
const PROCESS_USER = { username: 'shoal-e2e', password: randomBytes(12).toString('hex') };

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
      const container = await startKafkaContainer(env, PROCESS_USER);
      await checkSaslSsl(container.processEnv).catch(async (error: unknown) => {
        await container.stop();
        throw error;
      });
      return {
        kind,
        brokers: container.brokers,
        processEnv: container.processEnv,
        description: `${KAFKA_IMAGE} (KRaft) container on ${engine} at ${container.brokers.join(',')}, SASL_SSL at ${container.processEnv.KAFKA_BROKERS} (${container.built ? 'image built and ' : ''}started in ${took()})`,
        stop: () => container.stop(),
      };
    }
    case 'local': {
      const secure = await SecureKafkaBroker.start({ scramUsers: [PROCESS_USER] });
      const processEnv = secure.processEnv(PROCESS_USER);
      await checkSaslSsl(processEnv).catch(async (error: unknown) => {
        await secure.stop();
        throw error;
      });
      return {
        kind,
        brokers: [...secure.plaintextBrokers],
        processEnv,
        description: `local KRaft ${KAFKA_VERSION} at ${secure.plaintextBrokers.join(',')}, SASL_SSL at ${processEnv.KAFKA_BROKERS} (started in ${took()}; log ${secure.broker.logFile})`,
        stop: () => secure.stop(),
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
