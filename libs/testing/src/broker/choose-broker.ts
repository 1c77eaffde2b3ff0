/**
 * Which Kafka the tests use, in this order: the one KAFKA_BROKERS names; a Testcontainers
 * Kafka where a Docker engine answers; else a local KRaft broker from infra/kafka, which
 * needs Java. Pure: findTestBroker gathers the facts, this decides.
 */
export type BrokerKind = 'env' | 'testcontainers' | 'local';

export interface BrokerFacts {
  /** KAFKA_BROKERS as the environment has it; unset or blank means "not given". */
  readonly kafkaBrokersEnv?: string | undefined;
  /** A Docker engine answered `GET /_ping`. */
  readonly dockerAnswers: boolean;
  /** `java` runs here (what the local broker needs). */
  readonly javaPresent: boolean;
}

export const NO_BROKER_MESSAGE =
  'no Kafka broker for the tests: KAFKA_BROKERS is not set, no Docker engine answers ' +
  '(DOCKER_HOST, /var/run/docker.sock), and Java 17 not found on PATH to start a local one: ' +
  'install openjdk-17-jre-headless (and maven, for the jars), or set KAFKA_BROKERS=host:port';

/** The broker kind to use; throws an error naming Java when there is no way to get one. */
export const chooseBroker = (facts: BrokerFacts): BrokerKind => {
  if (facts.kafkaBrokersEnv !== undefined && facts.kafkaBrokersEnv.trim() !== '') return 'env';
  if (facts.dockerAnswers) return 'testcontainers';
  if (facts.javaPresent) return 'local';
  throw new Error(NO_BROKER_MESSAGE);
};
