/**
 * shoal audit story <id>: every record that touched a task, service, node, network, config
 * or secret, in log order, with evolve's verdict and, for a task, the scheduler's reasons —
 * from the story index beside the snapshots (`<data dir>/story-index`), reading only those
 * records (from the index's copies of them, or with --from-log from the log). The index is
 * checked against the log first; one that is missing or refused is built again by replay,
 * one that is behind is brought up to the log's end (the tail only).
 */
import { join } from 'node:path';
import { shoalSettings } from '@shoal/config';
import { taskStateName } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { buildStoryIndex, checkStoryIndex, readStory, taskItemOf } from '@shoal/runtime';
import type { StoryBuild, StoryRecord } from '@shoal/runtime';
import { FileSnapshotStore } from '@shoal/eventlog';
import { withLog } from './log-source';
import { withPointReads } from './point-reads';
import { progressReporter } from './progress';

export interface AuditStoryOptions {
  /** Where the index is kept (default `<SHOAL_DATA_DIR>/story-index`). */
  readonly index?: string;
  /** Build the index again from offset 0 first. */
  readonly rebuild?: boolean;
  /** Read each record from the log, not from the index's copies (for an index whose folder is not trusted). */
  readonly fromLog?: boolean;
  readonly json?: boolean;
}

const by = (event: ShoalEvent): string => `${event.by.component}/${event.by.instance}@${event.by.term}`;

/** Task states by name, a created task without the spec it runs (in a batch's items too): what a person reads. */
export const readable = (value: unknown): unknown => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key of ['state', 'desiredState']) if (typeof copy[key] === 'number') copy[key] = taskStateName(copy[key] as never);
  for (const key of ['tasks', 'statuses']) if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(readable);
  delete copy.spec;
  return copy;
};

/** The part of a record that concerns `id`: a task's item of a batch, or the record's data. */
const partFor = (event: ShoalEvent, id: string): unknown => {
  const item = taskItemOf(event, id);
  return item === undefined ? event.data : item;
};

/** One story record as JSON: where, when, who, what, the verdict, and the part that concerns the entity. */
export const storyEntry = (entry: StoryRecord, id: string) => ({
  offset: entry.record.offset,
  at: entry.event.at,
  type: entry.event.type,
  by: by(entry.event),
  verdict: entry.verdict,
  item: readable(partFor(entry.event, id)),
});

const brief = (value: unknown): string => {
  const text = JSON.stringify(value) ?? '';
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
};

/** The story as lines for a terminal: one a record, the verdict's reasons when it was refused. */
export const storyLines = (id: string, records: readonly StoryRecord[]): string[] => {
  const lines = [`${records.length} record${records.length === 1 ? '' : 's'} touched ${id}`];
  for (const entry of records) {
    const item = partFor(entry.event, id) as Record<string, unknown> | undefined;
    const why = entry.event.type === 'TasksAssigned' ? item?.why : entry.event.type === 'TasksUnschedulable' ? item?.explain : undefined;
    const refusedHere = entry.verdict.status !== 'applied' && (entry.verdict.status !== 'partial' || (entry.verdict.refused ?? []).includes(id));
    lines.push(
      [
        String(entry.record.offset).padStart(9),
        entry.event.at,
        entry.event.type.padEnd(26),
        by(entry.event).padEnd(28),
        refusedHere ? `REFUSED (${entry.verdict.status}): ${entry.verdict.reasons.join('; ')}` : typeof why === 'string' ? `why: ${why}` : brief(readable(item)),
      ].join('  '),
    );
  }
  return lines;
};

const describeBuild = (build: StoryBuild): string | undefined => {
  const refused = build.refused ? ` (the index there was refused: ${build.refused})` : '';
  if (build.how === 'built') return `story index built from offset 0: ${build.read.toLocaleString('en-US')} records${refused}`;
  if (build.how === 'extended') return `story index brought up to offset ${build.manifest.through}: ${build.read.toLocaleString('en-US')} records after it`;
  return undefined;
};

export const auditStory = (id: string, options: AuditStoryOptions): Promise<number> =>
  withLog(async (log) => {
    const dir = options.index ?? join(shoalSettings().SHOAL_DATA_DIR, 'story-index');
    const progress = progressReporter(process.stderr);
    progress.start('indexed');
    const build = await buildStoryIndex(log, dir, { fresh: options.rebuild ?? false, onProgress: (at, end) => progress.update(at, end) }).finally(() => progress.clear());
    const said = describeBuild(build);
    if (said) process.stderr.write(`${said}\n`);
    return withPointReads(log, async (reads) => {
      const check = await checkStoryIndex(dir, reads);
      if (!check.ok) throw new Error(check.reason);
      const records = await readStory(dir, check.manifest, reads, id, options.fromLog ? 'log' : 'copies');
      if (options.json) {
        const index = { dir, through: check.manifest.through, digest: check.manifest.digest, how: build.how };
        process.stdout.write(`${JSON.stringify({ id, index, records: records.map((entry) => storyEntry(entry, id)) })}\n`);
      } else {
        process.stdout.write(`${storyLines(id, records).join('\n')}\n`);
      }
      if (records.length === 0) {
        process.stderr.write(`shoal: no record touched ${id} (of ${check.manifest.through} records indexed)\n`);
        return 1;
      }
      return 0;
    });
  });

/** shoal audit index: the story index built, or brought up to the log's end; its manifest. */
export interface AuditIndexOptions {
  readonly index?: string;
  readonly rebuild?: boolean;
  /** Also a snapshot every this many records, all kept, in `<SHOAL_DATA_DIR>/snapshots/audit`. */
  readonly snapshotsEvery?: number;
}

export const auditIndex = (options: AuditIndexOptions): Promise<number> =>
  withLog(async (log) => {
    const data = shoalSettings().SHOAL_DATA_DIR;
    const dir = options.index ?? join(data, 'story-index');
    const snapshots = options.snapshotsEvery ? { store: new FileSnapshotStore(join(data, 'snapshots', 'audit'), Number.MAX_SAFE_INTEGER), every: options.snapshotsEvery } : undefined;
    const progress = progressReporter(process.stderr);
    progress.start('indexed');
    const build = await buildStoryIndex(log, dir, { fresh: options.rebuild ?? false, onProgress: (at, end) => progress.update(at, end), ...(snapshots ? { snapshots } : {}) }).finally(() => progress.clear());
    const { through, records, entities, postings, digest, hash } = build.manifest;
    process.stdout.write(
      [
        `index     ${dir}`,
        `how       ${describeBuild(build) ?? 'current: nothing to read'}`,
        `through   offset ${through} (${records} records)`,
        `entities  ${entities} (${postings} records touching them)`,
        `digest    ${digest}`,
        `state     ${hash}`,
        ...(snapshots ? [`snapshots ${(await snapshots.store.list()).length} in ${snapshots.store.dir}, every ${snapshots.every} records`] : []),
      ].join('\n') + '\n',
    );
    return 0;
  });
