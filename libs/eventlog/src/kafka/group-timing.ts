/**
 * Consumer-group timing for leases: a standby takes over within a second or two of a
 * release, and within `sessionTimeout` of a holder that vanished without leaving.
 * `maxWaitTimeInMs` paces kafkajs's fetch loop, which is also where it heartbeats: a
 * lease member consumes nothing, so without it a heartbeat would go out only every 5 s.
 */
export const GROUP_TIMING = {
  sessionTimeout: 10_000,
  rebalanceTimeout: 10_000,
  heartbeatInterval: 500,
  maxWaitTimeInMs: 200,
} as const;
