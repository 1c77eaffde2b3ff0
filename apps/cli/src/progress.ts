/**
 * Progress on a terminal: one line such as
 * "replayed 120,000 of 1,000,000 records · 45,000 records/s · ETA 20 s", redrawn in place
 * (carriage return) at most a few times a second and cleared at the end. On a stream that is
 * not a terminal (piped, redirected to a file) it writes nothing at all, so scripts, logs and
 * --json see only the result.
 */

/** What the reporter writes to: process.stderr, or a fake in tests. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  /** The terminal's width, when known: a longer line would wrap and defeat the redraw. */
  readonly columns?: number;
  write(text: string): unknown;
}

export interface ProgressReporter {
  /** Starts a pass: the rate and the ETA count from here; `verb` leads the line ("replayed"). */
  start(verb: string): void;
  /** `done` of `total` records so far in this pass; drawn unless one was drawn too recently. */
  update(done: number, total: number): void;
  /** Wipes the line, if one was drawn: what follows starts on a clean line. */
  clear(): void;
}

export interface ProgressOptions {
  /** The least time between two redraws, and before the first: a quick command shows none. */
  readonly everyMs?: number;
  readonly now?: () => number;
}

/** Erases from the cursor to the end of the line. */
const ERASE_LINE = '\x1b[K';

/** A whole number with thousands separators: 1,000,000. */
export const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** A span rounded up to whole seconds: "20 s", "3 min 05 s", "2 h 07 min". */
export const duration = (ms: number): string => {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(seconds / 3600)} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')} min`;
};

/** The line: records so far, and once there is a rate to go by, the rate and the time left. */
export const formatProgress = (done: number, total: number, elapsedMs: number, verb = 'replayed'): string => {
  const line = `${verb} ${count(done)} of ${count(total)} records`;
  const perSecond = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  if (perSecond <= 0) return line;
  const left = Math.max(0, total - done);
  return `${line} · ${count(perSecond)} records/s · ETA ${duration((left * 1000) / perSecond)}`;
};

export const progressReporter = (stream: ProgressStream, options: ProgressOptions = {}): ProgressReporter => {
  const now = options.now ?? Date.now;
  const everyMs = options.everyMs ?? 250;
  let verb = 'replayed';
  let started = now();
  let drawnAt = started;
  let drawn = false;
  return {
    start(next) {
      verb = next;
      started = now();
    },
    update(done, total) {
      if (!stream.isTTY) return;
      const at = now();
      if (at - drawnAt < everyMs) return;
      drawnAt = at;
      const line = formatProgress(done, total, at - started, verb);
      const width = stream.columns && stream.columns > 1 ? stream.columns - 1 : Infinity;
      stream.write(`\r${line.slice(0, width)}${ERASE_LINE}`);
      drawn = true;
    },
    clear() {
      if (!drawn) return;
      stream.write(`\r${ERASE_LINE}`);
      drawn = false;
    },
  };
};
