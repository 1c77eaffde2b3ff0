/**
 * Go's time.Duration on the wire is integer nanoseconds; Shoal's records keep whole
 * milliseconds. A duration crosses losslessly or not at all: one that is not a whole number
 * of milliseconds (`Delay: 5`) is refused naming its field, never rounded to another value.
 */
import { SpecError } from './spec-error';

const NS_PER_MS = 1_000_000;

/** Nanoseconds as milliseconds; throws a SpecError naming `field` when that would lose time. */
export const nsToMs = (ns: number, field: string): number => {
  if (ns % NS_PER_MS !== 0) throw new SpecError(field, `${ns}ns is not a whole number of milliseconds, the finest duration Shoal keeps`);
  return ns / NS_PER_MS;
};
export const msToNs = (ms: number): number => ms * NS_PER_MS;
