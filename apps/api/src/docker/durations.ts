/** Go's time.Duration on the wire is integer nanoseconds; Shoal keeps milliseconds. */
const NS_PER_MS = 1_000_000;

export const nsToMs = (ns: number): number => Math.round(ns / NS_PER_MS);
export const msToNs = (ms: number): number => ms * NS_PER_MS;
