/**
 * Test support for the audit proof: a log written with checkpoints among its records (as
 * a live cluster writes them), and the five ways to tamper with a copy of it.
 */
import type { EventLog } from '@shoal/eventlog';
import { AuditCheckpointer } from './audit-checkpointer';
import type { SigningKey } from './audit-keys';
import { replayLog } from './audit';

export type Tampering = 'changed' | 'removed' | 'inserted' | 'reordered' | 'truncated';
export const TAMPERINGS: readonly Tampering[] = ['changed', 'removed', 'inserted', 'reordered', 'truncated'];

const until = async (what: string, done: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/**
 * Appends `values` in batches of `batch` with a checkpoint writer following the log (every
 * `everyRecords`), then lets it sign the tail; resolves with the writer stopped.
 */
export const writeSignedLog = async (
  log: EventLog,
  values: readonly string[],
  options: { readonly key: SigningKey; readonly previousKey?: SigningKey; readonly everyRecords?: number; readonly batch?: number; readonly instance?: string },
): Promise<AuditCheckpointer> => {
  let term = (await replayLog(log)).state.terms.get('reaper') ?? 0;
  const checkpointer = new AuditCheckpointer(log, {
    key: options.key,
    ...(options.previousKey ? { previousKey: options.previousKey } : {}),
    everyRecords: options.everyRecords ?? 10,
    everyMs: 50,
    instance: options.instance ?? 'reaper-audit-test',
    term: () => term,
  });
  checkpointer.start();
  const batch = options.batch ?? 5;
  for (let i = 0; i < values.length; i += batch) {
    await log.append(values.slice(i, i + batch).map((value) => ({ key: 'c1', value })));
    const end = await log.highWaterMark();
    await until('the checkpoint writer to catch up', async () => checkpointer.position >= end);
    term = (await replayLog(log)).state.terms.get('reaper') ?? 0;
  }
  // The tail: signed once everyMs has gone by with nothing new.
  await until('the last checkpoint', async () => checkpointer.settled && checkpointer.position >= (await log.highWaterMark()));
  await checkpointer.stop();
  return checkpointer;
};

/** Every record's value, in order. */
export const readValues = async (log: EventLog): Promise<string[]> => (await log.read(0, { to: await log.highWaterMark() })).map((record) => record.value);

/** The log's records with one tampering at index `at` (truncated: cut to `at` records). */
export const tampered = (values: readonly string[], how: Tampering, at: number): string[] => {
  const out = [...values];
  switch (how) {
    case 'changed':
      out[at] = out[at]!.replace(/"at":"([^"]*)"/, (_, time: string) => `"at":"${time.replace(/\d(?=Z)/, (d) => String((Number(d) + 1) % 10))}"`);
      if (out[at] === values[at]) throw new Error(`record ${at} has no "at" to change`);
      return out;
    case 'removed':
      out.splice(at, 1);
      return out;
    case 'inserted':
      out.splice(at, 0, values[at]!.replace(/"id":"[^"]*"/, '"id":"inserted-by-hand"'));
      return out;
    case 'reordered':
      [out[at], out[at + 1]] = [out[at + 1]!, out[at]!];
      return out;
    case 'truncated':
      return out.slice(0, at);
    default: {
      const _exhaustive: never = how;
      return _exhaustive;
    }
  }
};

/** Copies `values` into `log` (a fresh one), in batches. */
export const copyInto = async (log: EventLog, values: readonly string[], batch = 500): Promise<void> => {
  for (let i = 0; i < values.length; i += batch) await log.append(values.slice(i, i + batch).map((value) => ({ key: 'c1', value })));
};
