/**
 * Which Kafka the tests use, in this order: the one KAFKA_BROKERS names; a Testcontainers
 * Kafka where a Docker engine answers; else a local KRaft broker from infra/kafka.
 */
export type BrokerKind = 'env' | 'testcontainers' | 'local';

export const chooseBroker = (facts: { readonly kafkaBrokersEnv?: string; readonly dockerAnswers: boolean }): BrokerKind =>
  facts.kafkaBrokersEnv && facts.kafkaBrokersEnv.trim() !== '' ? 'env' : facts.dockerAnswers ? 'testcontainers' : 'local';
