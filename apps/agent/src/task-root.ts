/**
 * Task roots: the directory of its own each exec task gets, where its configs are written
 * as files — what a container's filesystem is to SwarmKit's executor, for a task that runs
 * as a plain host process. A config whose target is /etc/app.conf is the file
 * `<root>/etc/app.conf`; the task finds its root in `SHOAL_TASK_ROOT`.
 *
 * Roots are `<dir>/<task id>`: `dir` is the agent's `<state-dir>/tasks` when it has a state
 * dir (beside the records of its task processes), else a directory of its own under the
 * system's temp dir, made when the first task needs it. A root goes when the node forgets
 * its task, every root the agent made when it stops, and those a crashed agent left in its
 * state dir when it starts again (`removeLeftovers`).
 *
 * A task given secrets gets its root in memory instead (`<memory dir>/<task id>`, on
 * /dev/shm by default), so no secret is ever written to the node's disk; a root there
 * that a crashed agent left goes with the next reboot at the latest.
 */
import { chmod, chown, mkdir, mkdtemp, readdir, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TaskConfig } from './executor';

/** The owner a config file is given (only an agent running as root gives files away). */
export interface FileOwner {
  readonly uid: number;
  readonly gid: number;
}

/**
 * Where in `root` a config's file goes: its name is a path from the root ("/etc/app.conf";
 * a relative one counts from "/"). A name that climbs out of the root with `..`, or names
 * the root itself, is refused.
 */
export const configPath = (root: string, name: string): string => {
  const parts: string[] = [];
  for (const part of name.split('/')) {
    if (part === '' || part === '.') continue;
    if (part !== '..') parts.push(part);
    else if (parts.pop() === undefined) throw new Error(`config file ${name} is outside the task's root: its path may not climb above "/" with ".."`);
  }
  if (parts.length === 0) throw new Error(`config file "${name}" names no file: give a path such as /etc/app.conf`);
  return join(root, ...parts);
};

/** Writes a task's configs into its root: each file with its mode, given to `ownerOf(config)` when that names an owner. */
export const writeConfigs = async (root: string, configs: readonly TaskConfig[], ownerOf: (config: TaskConfig) => FileOwner | undefined): Promise<void> => {
  for (const config of configs) {
    const { file } = config.reference;
    const path = configPath(root, file.name);
    await mkdir(dirname(path), { recursive: true, mode: 0o755 });
    // Nobody else may read it before it has its owner and mode (a mode at creation is cut by the umask).
    await writeFile(path, config.data, { mode: 0o600 });
    const owner = ownerOf(config);
    if (owner) await chown(path, owner.uid, owner.gid);
    await chmod(path, file.mode);
  }
};

/** A task id as a name in the state dir (its root, its log file): Shoal's ids are letters and digits; anything else is kept out of the path. */
export const taskPathName = (taskId: string): string => taskId.replace(/[^A-Za-z0-9_-]/g, '_');

/** Where roots that must stay in memory go by default. */
export const DEFAULT_MEMORY_ROOTS = '/dev/shm/shoal-task-roots';
const TMPFS_MAGIC = 0x01021994;
const RAMFS_MAGIC = 0x858458f6;

export class TaskRoots {
  private dir: Promise<string> | undefined;
  private readonly made = new Set<string>();

  /** `dir`: where roots go; none, a directory of its own under the system's temp dir. `memoryDir`: where roots kept in memory go. */
  constructor(
    private readonly given?: string,
    private readonly memoryDir: string = DEFAULT_MEMORY_ROOTS,
  ) {}

  /** Makes the task's root, empty: its path. `inMemory`: on tmpfs (a task with secrets), refused where there is none. */
  async make(taskId: string, options: { readonly inMemory?: boolean } = {}): Promise<string> {
    const root = join(options.inMemory ? await this.memoryParent() : await this.parent(), taskPathName(taskId));
    this.made.add(root);
    await rm(root, { recursive: true, force: true });
    await mkdir(root, { mode: 0o755 });
    return root;
  }

  /** Removes a root made by `make`. */
  async remove(root: string): Promise<void> {
    this.made.delete(root);
    await rm(root, { recursive: true, force: true });
  }

  /** Removes every root it made that is still there, and its own temp dir (the agent stops, its tasks stopped). */
  async close(): Promise<void> {
    const roots = [...this.made];
    this.made.clear();
    await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
    if (this.given === undefined && this.dir) await rm(await this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  /**
   * Removes the roots an earlier agent left in the state dir: their tasks ended with it
   * (after its leftover processes are stopped). The task processes' records there are
   * files: they stay. The names of the roots removed.
   */
  async removeLeftovers(): Promise<string[]> {
    if (this.given === undefined) return [];
    const entries = await readdir(this.given, { withFileTypes: true }).catch(() => []);
    const roots = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    await Promise.all(roots.map((name) => rm(join(this.given!, name), { recursive: true, force: true })));
    return roots;
  }

  /** The directory in-memory roots go in: made if need be, refused unless on tmpfs (or ramfs). */
  private async memoryParent(): Promise<string> {
    await mkdir(this.memoryDir, { recursive: true, mode: 0o711 });
    const { type } = await statfs(this.memoryDir);
    if (type !== TMPFS_MAGIC && type !== RAMFS_MAGIC) {
      throw new Error(`a task with secrets keeps its files in memory, and ${this.memoryDir} is not on tmpfs: the exec executor will not write secrets to disk`);
    }
    return this.memoryDir;
  }

  /**
   * The directory roots go in, made once. Others may pass through it, not list it: a task
   * that runs as another user reaches its own root, and sees no one else's names.
   */
  private parent(): Promise<string> {
    this.dir ??= (async () => {
      const dir = this.given ?? (await mkdtemp(join(tmpdir(), 'shoal-task-roots-')));
      await mkdir(dir, { recursive: true });
      await chmod(dir, 0o711);
      return dir;
    })();
    // A failure is this task's; the next one tries again.
    this.dir.catch(() => (this.dir = undefined));
    return this.dir;
  }
}
