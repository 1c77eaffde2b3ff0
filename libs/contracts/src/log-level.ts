/**
 * The log level: the gate before a writer uses a record version some reader may not read.
 * Each build reads and writes up to LOG_LEVEL; each record version is first allowed at a
 * level (VERSION_LEVELS; every version not listed: level 1), and so is each rule evolve
 * added since levels began (RULE_LEVELS). A build that brings a new
 * version writes it only once the log has been raised to its level (LogLevelRaised), and
 * evolve raises it only when every component's owner reads that level. A reader that meets
 * a level or a version it does not know stops there (a `future` record) rather than skip it.
 */
import type { EventType } from './events';

/** The highest log level this build reads and writes. */
export const LOG_LEVEL = 6;

/**
 * The level from which evolve applies a rule that earlier builds did not have: on a log
 * below it, this build rules as they do, so old and new processes never disagree in a
 * rolling upgrade. A new cluster starts at its first writer's LOG_LEVEL.
 *  - 2: a service spec past the cluster's admission limits is refused on the log (the API
 *    refuses it at every level).
 *  - 3: a node removed moves its tasks not yet ended to ORPHANED in the same record, as
 *    SwarmKit's RemoveNode does; and a network is kept from removal only by tasks still meant
 *    to run (desired RUNNING or before, their service not removed), as SwarmKit's
 *    removeNetwork, not by the tasks of a service removed or stood down until they stop.
 *  - 5: a cluster spec may carry the CA's settings (the node certificate expiry); below 5
 *    a spec that does is refused, as builds before it would keep it and not honour it.
 *  - 5: a task's reported status keeps its container's id and PID (TaskStatusesReported
 *    items may carry them, and builds before it ignore them); below 5 they are not kept.
 *  - 6: a node's description keeps its TLS (the roots it trusts, its certificate's issuer),
 *    which ends a root CA rotation; below 6 it is not kept.
 */
export const RULE_LEVELS = {
  admissionLimitsOnTheLog: 2,
  nodeRemovalOrphansTasks: 3,
  networkHeldOnlyByTasksMeantToRun: 3,
  caSettingsInTheSpec: 5,
  containerStatusOfTasks: 5,
  nodeTlsInfo: 6,
} as const;

export type VersionLevels = { readonly [K in EventType]?: Readonly<Record<number, number>> };

/**
 * The level each record version is first allowed at, where above 1.
 *  - 4: secrets (a build before it would stop at the first, not knowing the type).
 *  - 5: join tokens kept as hashes and sealed, not in the clear (ClusterInitialized and
 *    JoinTokensRotated v2).
 *  - 6: root CA rotation (RootCaRotationStarted).
 */
export const VERSION_LEVELS: VersionLevels = {
  SecretCreated: { 1: 4 },
  SecretUpdated: { 1: 4 },
  SecretRemoved: { 1: 4 },
  ClusterInitialized: { 2: 5 },
  JoinTokensRotated: { 2: 5 },
  RootCaRotationStarted: { 1: 6 },
};

/** The log level at which version `v` of `type` may be written. */
export const levelOfVersion = (type: EventType, v: number, levels: VersionLevels = VERSION_LEVELS): number => levels[type]?.[v] ?? 1;

/** Why version `v` of `type` may not be written on a log at `logLevel`; undefined when it may. */
export const versionGateRefusal = (type: EventType, v: number, logLevel: number, levels: VersionLevels = VERSION_LEVELS): string | undefined => {
  const needs = levelOfVersion(type, v, levels);
  if (needs <= logLevel) return undefined;
  return `${type} v${v} needs log level ${needs} and the log is at level ${logLevel}: raise it (POST /shoal/v1/log-level) once every component runs a build that reads level ${needs}`;
};
