import { groupTiming } from './group-timing';
import { DEFAULT_LEASE_TIMEOUT_MS } from './lease-thread';

describe('the timing of a lease group member', () => {
  it('takes the lease timeout as its session timeout, 2 s unless set', () => {
    expect(DEFAULT_LEASE_TIMEOUT_MS).toBe(2_000);
    expect(groupTiming(DEFAULT_LEASE_TIMEOUT_MS)).toEqual({ sessionTimeout: 2_000, rebalanceTimeout: 10_000, heartbeatInterval: 400, maxWaitTimeInMs: 200 });
  });

  it('heartbeats five times a session, at most every 500 ms, and keeps the rebalance timeout at least the session', () => {
    expect(groupTiming(1_000)).toMatchObject({ sessionTimeout: 1_000, heartbeatInterval: 200, rebalanceTimeout: 10_000 });
    expect(groupTiming(10_000)).toMatchObject({ sessionTimeout: 10_000, heartbeatInterval: 500, rebalanceTimeout: 10_000 });
    expect(groupTiming(60_000)).toMatchObject({ sessionTimeout: 60_000, heartbeatInterval: 500, rebalanceTimeout: 60_000 });
  });
});
