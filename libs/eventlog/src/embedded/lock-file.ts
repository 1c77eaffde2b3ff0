/**
 * `<dir>/LOCK`, holding the pid of the process that has the embedded log open: a second
 * process (or a second open in this one) is refused with a clear error. A lock left by a
 * process that is gone is taken over; so is one carrying our own pid that this process
 * does not hold (a container restarted as pid 1 again).
 */
import { randomUUID } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, realpathSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Directories this process holds, by real path. */
const held = new Set<string>();

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return code(error) === 'EPERM';
  }
};

const readPid = (path: string): number | undefined => {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if (code(error) === 'ENOENT') return undefined;
    throw error;
  }
};

export class LockFile {
  private released = false;

  private constructor(
    private readonly dir: string,
    private readonly path: string,
  ) {}

  /** Takes `<dir>/LOCK` for this process, or throws saying who holds it. `dir` must exist. */
  static acquire(dir: string): LockFile {
    const real = realpathSync(dir);
    if (held.has(real)) throw new Error(`the embedded log in ${real} is already open in this process`);
    const path = join(real, 'LOCK');
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        try {
          writeSync(fd, `${process.pid}\n`);
        } finally {
          closeSync(fd);
        }
        held.add(real);
        return new LockFile(real, path);
      } catch (error) {
        if (code(error) !== 'EEXIST') throw error;
      }
      const pid = readPid(path);
      if (pid !== undefined && pid !== process.pid && alive(pid)) {
        throw new Error(
          `the embedded log in ${real} is in use by process ${pid}; stop that process first, or point SHOAL_DATA_DIR elsewhere`,
        );
      }
      LockFile.takeOverStale(path, pid);
    }
    throw new Error(`could not take ${path}: other processes keep taking it`);
  }

  /** Removes a stale lock so the next attempt can create ours; only one contender's rename wins. */
  private static takeOverStale(path: string, stalePid: number | undefined): void {
    const aside = `${path}.stale-${randomUUID()}`;
    try {
      renameSync(path, aside);
    } catch (error) {
      if (code(error) === 'ENOENT') return; // someone else moved it: try again
      throw error;
    }
    if (readPid(aside) !== stalePid) {
      // We moved a lock another process had just taken: put it back unless yet another appeared.
      try {
        linkSync(aside, path);
      } catch {
        // a newer lock is in place; it is the one that counts
      }
    }
    unlinkSync(aside);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    held.delete(this.dir);
    if (readPid(this.path) === process.pid) {
      try {
        unlinkSync(this.path);
      } catch {
        // already gone
      }
    }
  }
}
