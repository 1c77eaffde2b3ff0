/**
 * The log level: the gate before a writer uses a record version some reader may not read.
 * Each build reads and writes up to LOG_LEVEL; each record version is first allowed at a
 * level (VERSION_LEVELS; every version not listed: level 1). A build that brings a new
 * version writes it only once the log has been raised to its level (LogLevelRaised), and
 * evolve raises it only when every component's owner reads that level. A reader that meets
 * a level or a version it does not know stops there (a `future` record) rather than skip it.
 */
import type { EventType } from './events';

/** The highest log level this build reads and writes. */
export const LOG_LEVEL = 1;

export type VersionLevels = { readonly [K in EventType]?: Readonly<Record<number, number>> };

/** The level each record version is first allowed at, where above 1. None yet. */
export const VERSION_LEVELS: VersionLevels = {};

/** The log level at which version `v` of `type` may be written. */
export const levelOfVersion = (type: EventType, v: number, levels: VersionLevels = VERSION_LEVELS): number => levels[type]?.[v] ?? 1;

/** Why version `v` of `type` may not be written on a log at `logLevel`; undefined when it may. */
export const versionGateRefusal = (type: EventType, v: number, logLevel: number, levels: VersionLevels = VERSION_LEVELS): string | undefined => {
  const needs = levelOfVersion(type, v, levels);
  if (needs <= logLevel) return undefined;
  return `${type} v${v} needs log level ${needs} and the log is at level ${logLevel}: raise it (POST /shoal/v1/log-level) once every component runs a build that reads level ${needs}`;
};
