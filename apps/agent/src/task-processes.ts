/**
 * The task processes an exec agent started, recorded in its state dir — one file per task,
 * `<dir>/<task id>.json` with the pid, the process's start time and the task's stop grace
 * period — so that an agent restarted after a crash first stops what the old one left
 * running. Tasks run in process groups of their own and outlive a killed agent; the
 * restarted agent reports them FAILED ("the agent restarted and the task did not survive
 * it") and the orchestrator replaces them, so without this a task would run twice.
 *
 * The start time (field 22 of /proc/<pid>/stat) tells the recorded process from another
 * that was later given the same pid: such a one is never signalled. Where there is no
 * /proc, nothing can be told apart, and leftovers are reported, not stopped.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signalGroup } from './process-group';

interface Recorded {
  readonly pid: number;
  readonly startTime: string;
  readonly gracePeriodMs: number;
}

/** What became of a process an earlier agent left running. */
export interface Leftover {
  readonly taskId: string;
  readonly pid: number;
  readonly outcome: 'stopped' | 'killed' | 'gone' | 'unverifiable';
}

/** The process's start time in clock ticks since boot, or undefined if it is gone (or a zombie) or there is no /proc. */
export const processStartTime = (pid: number): string | undefined => {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return fields[19];
};

const hasProc = (): boolean => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
};

export class TaskProcessRecord {
  constructor(
    private readonly dir: string,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  /** Records a task's process once it has started. */
  started(taskId: string, pid: number, gracePeriodMs: number): void {
    const startTime = processStartTime(pid);
    if (startTime === undefined) return;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileSync(this.file(taskId), JSON.stringify({ pid, startTime, gracePeriodMs } satisfies Recorded), { mode: 0o600 });
  }

  /** Forgets a task's process once it has ended. */
  ended(taskId: string): void {
    rmSync(this.file(taskId), { force: true });
  }

  /**
   * Stops every recorded process still running as recorded: SIGTERM to its group, its
   * grace period, then SIGKILL; forgets each. Resolves with what became of each.
   */
  async stopLeftovers(): Promise<Leftover[]> {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((name) => name.endsWith('.json'));
    } catch {
      return [];
    }
    const verifiable = hasProc();
    return Promise.all(
      names.map(async (name): Promise<Leftover> => {
        const taskId = name.slice(0, -'.json'.length);
        const recorded = this.read(name);
        if (!recorded) {
          this.ended(taskId);
          return { taskId, pid: 0, outcome: 'gone' };
        }
        const { pid } = recorded;
        if (!verifiable) return { taskId, pid, outcome: 'unverifiable' };
        const outcome = await this.stop(recorded);
        this.ended(taskId);
        return { taskId, pid, outcome };
      }),
    );
  }

  private async stop({ pid, startTime, gracePeriodMs }: Recorded): Promise<Leftover['outcome']> {
    const same = (): boolean => processStartTime(pid) === startTime;
    if (!same()) return 'gone';
    signalGroup(pid, 'SIGTERM');
    const deadline = Date.now() + gracePeriodMs;
    while (Date.now() < deadline) {
      await this.sleep(50);
      if (!same()) return 'stopped';
    }
    if (!same()) return 'stopped';
    signalGroup(pid, 'SIGKILL');
    return 'killed';
  }

  private read(name: string): Recorded | undefined {
    try {
      const value = JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as Partial<Recorded>;
      return Number.isInteger(value.pid) && (value.pid ?? 0) > 0 && typeof value.startTime === 'string' && typeof value.gracePeriodMs === 'number'
        ? (value as Recorded)
        : undefined;
    } catch {
      return undefined;
    }
  }

  private file(taskId: string): string {
    // Task ids are Shoal's object ids (letters and digits); anything else is kept out of the path.
    return join(this.dir, `${taskId.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
  }
}
