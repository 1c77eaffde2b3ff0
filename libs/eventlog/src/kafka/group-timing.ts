/** Consumer-group session settings that let a standby take over in seconds, not half a minute. */
export const GROUP_TIMING = { sessionTimeout: 6_000, rebalanceTimeout: 10_000, heartbeatInterval: 500 } as const;
