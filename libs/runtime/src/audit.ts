/**
 * The audit: rebuild the state from the log at any offset, and verify that replay is
 * deterministic — the whole log twice, and snapshot + tail — listing every refused and
 * poison record with its reason.
 */
import { Projection } from '@shoal/domain';
import type { Refusal, Snapshot, Tally } from '@shoal/domain';
import type { EventLog } from '@shoal/eventlog';

const CHUNK = 5_000;

/** Replays the log from `from` (or from a snapshot) up to `to` (exclusive; default the high-water mark). */
export const replayLog = async (
  log: EventLog,
  options: { readonly to?: number; readonly snapshot?: Snapshot; readonly keepRefusals?: number } = {},
): Promise<Projection> => {
  const keep = { keepRefusals: options.keepRefusals ?? Infinity };
  let projection = new Projection(undefined, 0, keep);
  if (options.snapshot) {
    const restored = Projection.fromSnapshot(options.snapshot, keep);
    if (typeof restored === 'string') throw new Error(restored);
    projection = restored;
  }
  const end = options.to ?? (await log.highWaterMark());
  while (projection.position < end) {
    const batch = await log.read(projection.position, { to: end, max: CHUNK });
    if (batch.length === 0) break;
    projection.applyAll(batch);
    if (projection.halted) break;
    // Kafka offsets may skip (control records); move past what was read.
    projection.position = Math.max(projection.position, batch[batch.length - 1]!.offset + 1);
  }
  return projection;
};

export interface ReplayCheck {
  readonly name: string;
  readonly position: number;
  readonly hash: string;
  readonly agrees: boolean;
}

export interface VerifyReport {
  readonly log: string;
  readonly highWaterMark: number;
  readonly hash: string;
  readonly agree: boolean;
  readonly checks: readonly ReplayCheck[];
  readonly tally: Tally;
  readonly refusals: readonly Refusal[];
  /** Where every replay stopped, on a record a newer build wrote: nothing past it was checked. */
  readonly halted?: { readonly offset: number; readonly reason: string };
}

export interface VerifyOptions {
  /** Snapshots to check: each restored, its tail replayed, must reach the full replay's hash. */
  readonly snapshots?: readonly { readonly name: string; readonly snapshot: Snapshot }[];
}

export const verifyLog = async (log: EventLog, options: VerifyOptions = {}): Promise<VerifyReport> => {
  const highWaterMark = await log.highWaterMark();
  const first = await replayLog(log, { to: highWaterMark });
  const second = await replayLog(log, { to: highWaterMark });
  const hash = first.hash();
  const checks: ReplayCheck[] = [
    { name: 'replay 1 (from offset 0)', position: first.position, hash, agrees: true },
    { name: 'replay 2 (from offset 0)', position: second.position, hash: second.hash(), agrees: second.hash() === hash },
  ];

  // A snapshot made now at the middle of the log, through its bytes, then the tail.
  const middle = Math.floor(highWaterMark / 2);
  const head = await replayLog(log, { to: middle });
  const midSnapshot = JSON.parse(JSON.stringify(head.snapshot())) as Snapshot;
  const fromMiddle = await replayLog(log, { to: highWaterMark, snapshot: midSnapshot });
  checks.push({
    name: `snapshot at offset ${middle} (made now) + tail`,
    position: fromMiddle.position,
    hash: fromMiddle.hash(),
    agrees: fromMiddle.hash() === hash,
  });

  for (const { name, snapshot } of options.snapshots ?? []) {
    if (snapshot.offset > highWaterMark) {
      checks.push({ name: `${name}: snapshot at ${snapshot.offset} is past the log's end`, position: snapshot.offset, hash: snapshot.hash, agrees: false });
      continue;
    }
    try {
      const restored = await replayLog(log, { to: highWaterMark, snapshot });
      checks.push({ name: `${name}: snapshot at offset ${snapshot.offset} + tail`, position: restored.position, hash: restored.hash(), agrees: restored.hash() === hash });
    } catch (error) {
      checks.push({ name: `${name}: ${(error as Error).message}`, position: snapshot.offset, hash: snapshot.hash, agrees: false });
    }
  }

  return {
    log: log.description,
    highWaterMark,
    hash,
    agree: checks.every((check) => check.agrees),
    checks,
    tally: first.tally,
    refusals: first.refusals,
    ...(first.halted ? { halted: first.halted } : {}),
  };
};

