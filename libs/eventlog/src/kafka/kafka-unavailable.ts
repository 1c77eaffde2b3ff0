/**
 * Which kafkajs errors mean the broker is out of reach (connection refused or lost, a
 * request that timed out, no broker or leader to send to), as opposed to a refusal the
 * broker made (a batch too large, an unknown topic). kafkajs wraps the last attempt's
 * error in KafkaJSNumberOfRetriesExceeded (`cause`), so the chain is walked.
 */
const UNREACHABLE = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSTimeout',
  'KafkaJSLockTimeout',
]);

/** Protocol errors a broker answers while a partition has no leader it can write to. */
const NO_LEADER = new Set(['LEADER_NOT_AVAILABLE', 'NOT_LEADER_FOR_PARTITION', 'NOT_LEADER_OR_FOLLOWER', 'NOT_ENOUGH_REPLICAS', 'REQUEST_TIMED_OUT']);

export const isBrokerUnreachable = (error: unknown): boolean => {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    if (UNREACHABLE.has(current.name)) return true;
    const type = (current as { type?: unknown }).type;
    if (typeof type === 'string' && NO_LEADER.has(type)) return true;
  }
  return false;
};
