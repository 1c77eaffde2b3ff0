import { TaskState, taskStateName } from '@shoal/contracts';
import type { TaskStateName } from '@shoal/contracts';
import { toStateData } from '@shoal/domain';
import { join } from 'node:path';
import { shoalSettings } from '@shoal/config';
import { snapshotAtOrBefore } from '@shoal/eventlog';
import { haltMessage, offsetAtTime, replayLog } from '@shoal/runtime';
import { withLog } from './log-source';
import { withPointReads } from './point-reads';
import { progressReporter } from './progress';
import { readProgress } from './read-progress';

export interface AuditReplayOptions {
  /** Replay the records before this offset. */
  readonly to?: number;
  /** …or those written at or before this time (an ISO date, or Unix seconds). */
  readonly at?: string;
  /** Where the components' snapshots are (default `<SHOAL_DATA_DIR>/snapshots`): the replay starts from the newest at or before the point. */
  readonly snapshots?: string;
  /** Replay from the first record, whatever snapshots there are. */
  readonly fromScratch?: boolean;
  readonly json?: boolean;
}

/** `--at`'s time in ms: an ISO date, or Unix seconds (as `docker events --since`); undefined when it is neither. */
export const parseReplayTime = (text: string): number | undefined => {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1_000;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
};

/**
 * The state at a point of the log (an offset, a time, or the end): from the newest snapshot
 * at or before it whose hash checks (any component's: each holds the whole state), then the
 * records after it — or from the first record with --from-scratch. The hash is the same
 * either way; the snapshot only spares reading what it already holds.
 */
export const auditReplay = (options: AuditReplayOptions): Promise<number> =>
  withLog(async (log) => {
    const end = await log.highWaterMark();
    if (options.to !== undefined && options.at !== undefined) {
      process.stderr.write('shoal: give --to or --at, not both\n');
      return 2;
    }
    if (options.to !== undefined && options.to > end) {
      process.stderr.write(`shoal: --to ${options.to} is past the end of the log (${end} records); use --to ${end} or less\n`);
      return 2;
    }
    const time = options.at === undefined ? undefined : parseReplayTime(options.at);
    if (options.at !== undefined && time === undefined) {
      process.stderr.write(`shoal: --at ${options.at} is not a time: give an ISO date (2026-11-26T15:00:00Z) or Unix seconds\n`);
      return 2;
    }
    // The bisection reads one record a step: through fetches of one record batch.
    const to = time !== undefined ? await withPointReads(log, (reads) => offsetAtTime(reads, time)) : (options.to ?? end);
    const dir = options.snapshots ?? join(shoalSettings().SHOAL_DATA_DIR, 'snapshots');
    const start = options.fromScratch ? undefined : await snapshotAtOrBefore(dir, to);
    // On a terminal, how far the replay has got (stderr only: stdout stays the result).
    const progress = progressReporter(process.stderr);
    const projection = await replayLog(readProgress(log, progress, () => 'replayed'), { to, ...(start ? { snapshot: start.snapshot } : {}) }).finally(() => progress.clear());
    const hash = projection.hash();
    const from = start ? { snapshot: start.name, offset: start.snapshot.offset } : { offset: 0 };
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ offset: projection.position, hash, from, tally: projection.tally, ...(projection.halted ? { halted: projection.halted } : {}), state: toStateData(projection.state) })}\n`);
      return 0;
    }
    const { state, tally } = projection;
    const byState = new Map<TaskStateName, number>();
    for (const task of state.tasks.values()) {
      const name = taskStateName(task.status.state);
      byState.set(name, (byState.get(name) ?? 0) + 1);
    }
    const tasks = [...byState.entries()]
      .sort(([a], [b]) => TaskState[a] - TaskState[b])
      .map(([name, count]) => `${count} ${name}`)
      .join(', ');
    const lines = [
      `log       ${log.description}`,
      `offset    ${projection.position} of ${end}${time !== undefined ? ` (the last record at or before ${new Date(time).toISOString()})` : ''}`,
      `from      ${start ? `the ${start.name} snapshot at offset ${start.snapshot.offset} (its hash checked), then ${projection.position - start.snapshot.offset} records` : `offset 0, ${projection.position} records`}`,
      `hash      ${hash}`,
      `records   ${tally.applied} applied, ${tally.partial} partial, ${tally.rejected} rejected, ${tally.poison} poison`,
      `cluster   ${state.cluster ? `${state.cluster.id} (spec version ${state.cluster.version})` : 'not initialized'}`,
      `services  ${state.services.size}`,
      `nodes     ${state.nodes.size}`,
      `networks  ${state.networks.size}`,
      `configs   ${state.configs.size}`,
      `secrets   ${state.secrets.size}`,
      `tasks     ${state.tasks.size}${tasks ? ` (${tasks})` : ''}`,
      ...(projection.halted ? [`stopped   ${haltMessage(projection.halted)}`] : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return projection.halted ? 1 : 0;
  });
