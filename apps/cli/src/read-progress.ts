/**
 * The log as the audit commands hand it to replayLog, verifyLog and proveLog, showing how far
 * they have read. Those read the log in batches, each read asking from an offset up to a
 * target (the high-water mark, or --to); a read that does not carry on where the last batch
 * ended, or aims at another target, starts a new pass (verify reads the log several times).
 * Everything else goes straight to the log.
 */
import type { EventLog, LogRecord, ReadOptions } from '@shoal/eventlog';
import type { ProgressReporter } from './progress';

/** Where a pass stands: `done` of `total` records since it began at `from`. */
interface Pass {
  readonly from: number;
  readonly to: number;
  /** The offset a read carrying on this pass would ask for. */
  next: number;
}

/** `verb` names each new pass on the progress line ("replayed", "replay 2 of the log: read"). */
export const readProgress = (log: EventLog, progress: ProgressReporter, verb: () => string): EventLog => {
  let pass: Pass | undefined;
  const read = async (from: number, options?: ReadOptions): Promise<LogRecord[]> => {
    const to = options?.to ?? (await log.highWaterMark());
    if (!pass || from !== pass.next || to !== pass.to) {
      pass = { from, to, next: from };
      progress.start(verb());
    }
    progress.update(from - pass.from, Math.max(0, pass.to - pass.from));
    const batch = await log.read(from, options);
    // Kafka offsets may skip (control records): the next read starts past the last one read.
    pass.next = batch.length > 0 ? batch[batch.length - 1]!.offset + 1 : from;
    return batch;
  };
  return {
    get description() {
      return log.description;
    },
    read,
    append: (records) => log.append(records),
    follow: (from, handler, options) => log.follow(from, handler, options),
    highWaterMark: () => log.highWaterMark(),
    acquire: (component, instance, options) => log.acquire(component, instance, options),
    close: () => log.close(),
  };
};
