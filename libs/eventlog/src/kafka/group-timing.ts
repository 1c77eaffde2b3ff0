/**
 * Consumer-group timing for leases: a standby takes over within a second or two of a
 * release, and within about `sessionTimeout` of a holder that vanished without leaving
 * (killed, or paused longer than that): the group coordinator expires the holder's session,
 * and the standby, heartbeating, is told to join again and is given the partition.
 *
 * The session timeout is the lease timeout (SHOAL_LEASE_TIMEOUT_MS, 2 s by default; the
 * brokers' group.min.session.timeout.ms must allow it). A holder that goes unheard longer
 * (a long GC pause, a starved machine) loses its lease to a standby; that is safe, since the
 * standby's OwnershipTaken fences every later record of the older term, and the holder
 * steps down when it hears.
 *
 * Heartbeats go out every fifth of the session (at most every 500 ms), so four can be lost
 * or late before the session ends. `maxWaitTimeInMs` paces kafkajs's fetch loop, which is
 * also where it heartbeats: a lease member consumes nothing, so without it a heartbeat
 * would go out only every 5 s. The rebalance timeout (how long the coordinator waits for
 * the members to join again when one comes or goes) stays at 10 s: a holder busy for a
 * moment is not dropped from a rebalance a standby's arrival started.
 */
export interface GroupTiming {
  readonly sessionTimeout: number;
  readonly rebalanceTimeout: number;
  readonly heartbeatInterval: number;
  readonly maxWaitTimeInMs: number;
}

/**
 * The kafkajs consumer timing of a lease that expires `leaseTimeoutMs` after its holder's
 * last heartbeat. (This file imports nothing: the lease's thread loads it, and a thread of
 * a built deployment resolves no @shoal/* alias.)
 */
export const groupTiming = (leaseTimeoutMs: number): GroupTiming => ({
  sessionTimeout: leaseTimeoutMs,
  rebalanceTimeout: Math.max(10_000, leaseTimeoutMs),
  heartbeatInterval: Math.min(500, Math.floor(leaseTimeoutMs / 5)),
  maxWaitTimeInMs: 200,
});
