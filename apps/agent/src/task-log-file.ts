/**
 * Task logs on disk: what an exec agent with a state dir keeps of each task's output
 * besides its log in memory, in `<state-dir>/logs/<task id>`, so that the agent restarted
 * (killed or stopped) still has what its tasks wrote for as long as the node has them —
 * as Docker keeps a container's log until the container is removed. A simulated fleet
 * keeps none: its tasks, tens of thousands, would each need a file.
 *
 * A file holds one JSON object a line, oldest first:
 *   {"at":1700000000000,"stream":"stdout","data":"the line\n"}
 * `at` in ms since the epoch; `data` the line as text, or `base64` in its place for bytes
 * that are not UTF-8. A line that does not read as one (torn by a crash mid-write) is
 * skipped. Lines are appended a batch at a time, one append in flight per task; a file
 * that grows past twice the log's bounds in memory (lines or bytes of output) is written
 * again from what the log keeps (a temp file, renamed over it). A write that fails costs
 * the file, never the task: the agent says so once, and the file is written again from
 * memory a while later.
 *
 * A restarted agent reads the files its predecessor left (`open`); a task the node still
 * has begins its log with what its file holds (`keep`); the files of the tasks the first
 * COMPLETE set leaves out go (`keepOnly`), and a task's file goes when the node forgets it.
 */
import { isUtf8 } from 'node:buffer';
import { appendFile, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KEPT_BYTES, KEPT_LINES } from './task-log';
import type { LogEntry, TaskLog } from './task-log';
import { taskPathName } from './task-root';
import type { KeptTaskLog, TaskLogStore } from './worker';

/** How long a task's file is left alone after a write to it failed. */
export const RETRY_AFTER_MS = 5_000;

const TEMP = '.tmp';
const ALL = { stdout: true, stderr: true, tail: -1, sinceMs: 0 } as const;

/** One entry as a line of its file. */
export const encodeEntry = (entry: LogEntry): string =>
  `${JSON.stringify(
    isUtf8(entry.data)
      ? { at: entry.at, stream: entry.stream, data: entry.data.toString('utf8') }
      : { at: entry.at, stream: entry.stream, base64: entry.data.toString('base64') },
  )}\n`;

/** The entry a line holds, or undefined if it does not read as one. */
const decodeLine = (line: string): LogEntry | undefined => {
  let value: { at?: unknown; stream?: unknown; data?: unknown; base64?: unknown };
  try {
    value = JSON.parse(line) as typeof value;
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { at, stream, data, base64 } = value;
  if (typeof at !== 'number' || !Number.isFinite(at) || (stream !== 'stdout' && stream !== 'stderr')) return undefined;
  if (typeof data === 'string') return { at, stream, data: Buffer.from(data, 'utf8') };
  if (typeof base64 === 'string') return { at, stream, data: Buffer.from(base64, 'base64') };
  return undefined;
};

/** What a file holds: its entries, and whether every line read as one and the last ended (else it is best written again before anything is appended). */
export interface ReadLog {
  readonly entries: LogEntry[];
  readonly clean: boolean;
}

/** A file's text as entries, skipping the lines that do not read (a torn last one). */
export const decodeEntries = (text: string): ReadLog => {
  const lines = text.split('\n');
  // Text that ends with a newline leaves an empty string after it; anything else there is a torn line.
  const last = lines.pop();
  let clean = last === '';
  if (!clean) lines.push(last!);
  const entries: LogEntry[] = [];
  for (const line of lines) {
    const entry = decodeLine(line);
    if (entry) entries.push(entry);
    else clean = false;
  }
  return { entries, clean };
};


export interface TaskLogFilesOptions {
  /** The bounds of the logs in memory (default: TaskLog's); a file is written again once it holds twice either. */
  readonly keptLines?: number;
  readonly keptBytes?: number;
  /** Lines for the agent's output (a write that failed, once). */
  readonly say?: (line: string) => void;
  readonly now?: () => number;
}

/** One task's file, kept in step with its log. */
class TaskLogFile implements KeptTaskLog {
  /** Lines waiting to be appended. */
  private pending: string[] = [];
  /** What the file holds (with what is pending), to tell when it has grown past its bound. */
  private lines: number;
  private bytes: number;
  /** The file is to be written again from the log (it grew too long, is torn, or a write failed). */
  private stale: boolean;
  private busy: Promise<void> | undefined;
  private retryAt = 0;
  private removed = false;
  private readonly unfollow: () => void;

  constructor(
    private readonly path: string,
    private readonly log: TaskLog,
    start: { readonly lines: number; readonly bytes: number; readonly stale: boolean },
    private readonly bounds: { readonly lines: number; readonly bytes: number },
    private readonly failed: (error: unknown) => void,
    private readonly now: () => number,
    /** What must be done before this file is touched (the removal of an earlier file of the same task). */
    private readonly after: Promise<void> | undefined,
  ) {
    this.lines = start.lines;
    this.bytes = start.bytes;
    this.stale = start.stale;
    this.unfollow = log.follow((entry) => this.written(entry));
    if (this.stale || after) this.schedule();
  }

  /** Stops keeping the file and removes it (the node forgot the task). Never rejects. */
  async remove(): Promise<void> {
    this.removed = true;
    this.unfollow();
    this.pending = [];
    await this.busy;
    try {
      await rm(this.path, { force: true });
      await rm(this.path + TEMP, { force: true });
    } catch (error) {
      this.failed(error);
    }
  }

  /** Resolves once what the log holds now is in the file (or a write failed); tries a file that failed again at once. */
  async flush(): Promise<void> {
    this.retryAt = 0;
    this.schedule();
    while (this.busy) await this.busy;
  }

  private written(entry: LogEntry): void {
    if (this.removed) return;
    if (!this.stale) {
      this.pending.push(encodeEntry(entry));
      this.lines += 1;
      this.bytes += entry.data.length;
      if (this.lines > 2 * this.bounds.lines || this.bytes > 2 * this.bounds.bytes) {
        // Written again from the log, which has these lines: they need not be appended.
        this.stale = true;
        this.pending = [];
      }
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.busy || this.removed || this.now() < this.retryAt) return;
    this.busy = this.drain();
  }

  private async drain(): Promise<void> {
    // The lines written in this turn (a chunk cut into lines) go out together.
    await null;
    await this.after;
    try {
      while (!this.removed && (this.stale || this.pending.length > 0)) {
        if (this.stale) await this.rewrite();
        else await this.append();
      }
    } catch (error) {
      // What the file missed is in the log: the file is written again from it later.
      this.stale = true;
      this.pending = [];
      this.retryAt = this.now() + RETRY_AFTER_MS;
      this.failed(error);
    } finally {
      this.busy = undefined;
    }
  }

  private async append(): Promise<void> {
    const batch = this.pending.join('');
    this.pending = [];
    await appendFile(this.path, batch, { mode: 0o600 });
  }

  /** The file becomes what the log keeps now; lines written meanwhile are appended after. */
  private async rewrite(): Promise<void> {
    const entries = this.log.read(ALL);
    this.stale = false;
    this.pending = [];
    this.lines = entries.length;
    this.bytes = entries.reduce((sum, entry) => sum + entry.data.length, 0);
    await writeFile(this.path + TEMP, entries.map(encodeEntry).join(''), { mode: 0o600 });
    await rename(this.path + TEMP, this.path);
  }
}

export class TaskLogFiles implements TaskLogStore {
  private readonly files = new Map<string, TaskLogFile>();
  /** Files' removals under way, by name: a task kept again meanwhile waits for its old file to go. */
  private readonly removals = new Map<string, Promise<void>>();
  /** What earlier agents left, by file name, until the node's tasks are known. */
  private left: Map<string, ReadLog> | undefined;
  private saidFailure = false;
  private readonly bounds: { readonly lines: number; readonly bytes: number };
  private readonly now: () => number;

  private constructor(
    private readonly dir: string,
    left: Map<string, ReadLog>,
    private readonly options: TaskLogFilesOptions,
  ) {
    this.left = left;
    this.bounds = { lines: options.keptLines ?? KEPT_LINES, bytes: options.keptBytes ?? KEPT_BYTES };
    this.now = options.now ?? (() => Date.now());
  }

  /** The files in `dir` (made if need be), with what earlier agents left there read; temp files of a rewrite cut short go. */
  static async open(dir: string, options: TaskLogFilesOptions = {}): Promise<TaskLogFiles> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const left = new Map<string, ReadLog>();
    const names = await readdir(dir);
    await Promise.all(
      names.map(async (name) => {
        const path = join(dir, name);
        if (name.endsWith(TEMP)) return rm(path, { force: true });
        try {
          left.set(name, decodeEntries(await readFile(path, 'utf8')));
        } catch (error) {
          options.say?.(`task log ${path} could not be read (${error instanceof Error ? error.message : String(error)}): its task's earlier output is lost`);
        }
      }),
    );
    return new TaskLogFiles(dir, left, options);
  }

  /** Names of the files earlier agents left that no task has taken yet. */
  get leftover(): string[] {
    return [...(this.left?.keys() ?? [])];
  }

  keep(taskId: string, log: TaskLog): KeptTaskLog {
    const name = taskPathName(taskId);
    const earlier = this.left?.get(name);
    this.left?.delete(name);
    if (earlier) log.restore(earlier.entries);
    const file = new TaskLogFile(
      join(this.dir, name),
      log,
      {
        lines: earlier?.entries.length ?? 0,
        bytes: earlier?.entries.reduce((sum, entry) => sum + entry.data.length, 0) ?? 0,
        stale: earlier !== undefined && !earlier.clean,
      },
      this.bounds,
      (error) => this.failed(error),
      this.now,
      this.removals.get(name),
    );
    this.files.set(name, file);
    return {
      remove: () => {
        if (this.files.get(name) === file) this.files.delete(name);
        return this.removing(name, file.remove());
      },
    };
  }

  /** The first time: the files earlier agents left of tasks other than these go (the node no longer has them). */
  keepOnly(taskIds: ReadonlySet<string>): void {
    const left = this.left;
    if (!left) return;
    const wanted = new Set([...taskIds].map(taskPathName));
    for (const name of [...left.keys()]) {
      if (wanted.has(name)) continue;
      left.delete(name);
      void this.removing(name, rm(join(this.dir, name), { force: true }).catch((error: unknown) => this.failed(error)));
    }
    // Those of the tasks named are taken as the worker takes the tasks on; any other task is new.
    this.left = new Map([...left].filter(([name]) => wanted.has(name)));
    if (this.left.size === 0) this.left = undefined;
  }

  /** Resolves once every file has what its log holds now and the files to go are gone (the agent stops). */
  async flush(): Promise<void> {
    await Promise.all([...this.files.values()].map((file) => file.flush()));
    await Promise.all([...this.removals.values()]);
  }

  /** Notes a file's removal under way until it is done. */
  private removing(name: string, removal: Promise<void>): Promise<void> {
    this.removals.set(name, removal);
    void removal.then(() => {
      if (this.removals.get(name) === removal) this.removals.delete(name);
    });
    return removal;
  }

  private failed(error: unknown): void {
    if (this.saidFailure) return;
    this.saidFailure = true;
    this.options.say?.(
      `task logs in ${this.dir} could not be written (${error instanceof Error ? error.message : String(error)}): task output is kept in memory, and may be missing from the files should the agent restart (said once)`,
    );
  }
}
