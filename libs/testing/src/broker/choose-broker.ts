/**
 * Which Kafka the tests use, in this order: the one KAFKA_BROKERS names; a broker container
 * (Testcontainers, an image built offline from the jars and this machine's JRE) on the run's
 * test engine where one answers; else a local KRaft broker from infra/kafka. Both of the
 * last two need Java. Pure: findTestBroker gathers the facts, this decides.
 */
export type BrokerKind = 'env' | 'testcontainers' | 'local' | 'cluster3';

export interface BrokerFacts {
  /** KAFKA_BROKERS as the environment has it; unset or blank means "not given". */
  readonly kafkaBrokersEnv?: string | undefined;
  /** The run's test engine (SHOAL_TEST_ENGINE) answered `GET /_ping`. */
  readonly engineAnswers: boolean;
  /** SHOAL_TEST_BROKER=local: the local broker even where an engine answers. */
  readonly localAsked?: boolean;
  /** SHOAL_TEST_BROKER=cluster3: a local KRaft cluster of three nodes (libs/testing/src/broker/kafka-cluster.ts). */
  readonly clusterAsked?: boolean;
  /** `java` runs here (what both the local broker and the broker image need). */
  readonly javaPresent: boolean;
}

export const NO_BROKER_MESSAGE =
  'no Kafka broker for the tests: KAFKA_BROKERS is not set, and Java 17 not found on PATH to start one ' +
  '(locally, or in a container on the test engine): install openjdk-17-jre-headless (and maven, for the jars), or set KAFKA_BROKERS=host:port';

/** The broker kind to use; throws an error naming Java when there is no way to get one. */
export const chooseBroker = (facts: BrokerFacts): BrokerKind => {
  if (facts.kafkaBrokersEnv !== undefined && facts.kafkaBrokersEnv.trim() !== '') return 'env';
  if (!facts.javaPresent) throw new Error(NO_BROKER_MESSAGE);
  if (facts.clusterAsked) return 'cluster3';
  return facts.engineAnswers && !facts.localAsked ? 'testcontainers' : 'local';
};
