/**
 * The exec executor: a task's container command and args run as a real child process on
 * this host, with the task's env (over PATH and HOME) in its working directory, as the
 * task's user when it names one (a user this host does not have rejects the task). The child
 * leads its own process group, so stopping it reaches everything it started: SIGTERM,
 * the grace period, then SIGKILL. Given a TaskProcessRecord, each running process is
 * recorded there, for an agent restarted after a crash to stop what this one left.
 * The child's stdout and stderr are pipes: what it writes goes to the task's log (and to
 * this process's own stdout and stderr too, with `output: 'inherit'`).
 *
 * There is no container filesystem: each task gets a root directory of its own instead
 * (task-root.ts) — `<state-dir>/tasks/<task id>` when the agent has a state dir, else one
 * under a directory of the agent's own in the system's temp dir — and finds its path in
 * `SHOAL_TASK_ROOT`. Prepare writes the task's configs (and secrets: a relative target under
 * /run/secrets, the root then on tmpfs, task-root.ts) there, each at its target under the
 * root (/etc/app.conf → `$SHOAL_TASK_ROOT/etc/app.conf`; a relative target counts from "/";
 * one that climbs out with `..` rejects the task) with the reference's mode. An agent
 * running as root gives each file the reference's uid and gid (names resolved as the
 * task's user is, task-user.ts), whoever the task runs as; any other agent cannot give files
 * away, and they are its own. Directories in the root are the agent's, 0755: the task reads,
 * and does not change, what it was given. The root goes when the node forgets the task.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { constants } from 'node:os';
import type { NodeDescriptionMessage } from '@shoal/protocol';
import { DEFAULT_STOP_GRACE_PERIOD_MS, taskEnv } from './executor';
import type { AssignedTask, Executor, OutputStream, TaskConfig, TaskController, TaskExit, TaskOutput } from './executor';
import { hostDescription } from './node-description';
import { signalGroup } from './process-group';
import type { TaskProcessRecord } from './task-processes';
import { TaskRoots, writeConfigs } from './task-root';
import type { FileOwner } from './task-root';
import { resolveFileOwner, resolveTaskUser } from './task-user';
import type { TaskIdentity } from './task-user';
import type { Timers } from './timers';

export interface ExecExecutorOptions {
  /** The node's name (default: the host's). */
  readonly hostname?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Where the children's stdout and stderr go besides the task's log: this process's own, or nowhere else. */
  readonly output?: 'inherit' | 'ignore';
  readonly timers: Timers;
  /** Where running task processes are recorded (the agent's state dir), if anywhere. */
  readonly processes?: TaskProcessRecord;
  /** Where tasks' roots go (`<state-dir>/tasks` for an agent with a state dir); default: a directory of its own under the system's temp dir. */
  readonly roots?: TaskRoots;
}

/** The agent runs as root: it may run tasks as other users and give files away. */
const runsAsRoot = (): boolean => process.getuid?.() === 0;

/** This host's passwd and group files (empty where there are none). */
const readAccounts = async (): Promise<{ passwd: string; group: string }> => {
  const [passwd, group] = await Promise.all([readFile('/etc/passwd', 'utf8').catch(() => ''), readFile('/etc/group', 'utf8').catch(() => '')]);
  return { passwd, group };
};

export class ExecExecutor implements Executor {
  private readonly roots: TaskRoots;

  constructor(private readonly options: ExecExecutorOptions) {
    this.roots = options.roots ?? new TaskRoots();
  }

  describe(): NodeDescriptionMessage {
    return hostDescription({ hostname: this.options.hostname, labels: this.options.labels, engineVersion: 'shoal-agent exec' });
  }

  controller(task: AssignedTask, output: TaskOutput): TaskController {
    return new ExecController(task, output, this.options.timers, this.options.output ?? 'ignore', this.options.processes, this.roots);
  }

  /** Removes the roots of the tasks it ran (the agent stops, its tasks stopped). */
  close(): Promise<void> {
    return this.roots.close();
  }
}

const signalNumber = (signal: NodeJS.Signals): number => constants.signals[signal] ?? 0;

class ExecController implements TaskController {
  private child: ChildProcess | undefined;
  private exited: Promise<TaskExit> | undefined;
  private exit: TaskExit | undefined;
  /** Who the task runs as when its spec names a user; the agent's own user otherwise. */
  private identity: TaskIdentity | undefined;
  /** The task's root, once prepare made it. */
  private root: string | undefined;
  /** Prepare, while it runs or once it ran: remove waits for it, so nothing is written after. */
  private preparing: Promise<void> | undefined;

  constructor(
    private readonly task: AssignedTask,
    private readonly log: TaskOutput,
    private readonly timers: Timers,
    private readonly output: 'inherit' | 'ignore',
    private readonly processes: TaskProcessRecord | undefined,
    private readonly roots: TaskRoots,
  ) {}

  private argv(): string[] {
    const { command = [], args = [] } = this.task.spec.container;
    return [...command, ...args];
  }

  prepare(): Promise<void> {
    this.preparing = this.prepareTask();
    return this.preparing;
  }

  private async prepareTask(): Promise<void> {
    if (this.argv().length === 0) throw new Error('the task has no command to run: its container command and args are empty');
    const dir = this.task.spec.container.dir;
    if (dir) {
      const info = await stat(dir).catch(() => undefined);
      if (!info?.isDirectory()) throw new Error(`the task's working directory ${dir} does not exist`);
    }
    const user = this.task.spec.container.user?.trim();
    const asRoot = runsAsRoot();
    // Read only when a name may need resolving: a task's user, or the owner of a file root gives away.
    const accounts = user || (asRoot && this.task.configs.length > 0) ? await readAccounts() : { passwd: '', group: '' };
    if (user) this.identity = resolveTaskUser(user, accounts);
    this.root = await this.roots.make(this.task.id, { inMemory: this.task.configs.some((config) => config.secret) });
    const ownerOf = (config: TaskConfig): FileOwner | undefined => (asRoot ? resolveFileOwner(config.reference.file, accounts) : undefined);
    await writeConfigs(this.root, this.task.configs, ownerOf);
  }

  start(): Promise<void> {
    const [file, ...rest] = this.argv();
    const env: Record<string, string> = {};
    for (const name of ['PATH', 'HOME'] as const) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    const identity = this.identity;
    if (identity?.home !== undefined) env.HOME = identity.home;
    Object.assign(env, taskEnv(this.task.spec));
    if (this.root !== undefined) env.SHOAL_TASK_ROOT = this.root;
    const child = spawn(file ?? '', rest, {
      cwd: this.task.spec.container.dir,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(identity ? { uid: identity.uid, gid: identity.gid } : {}),
    });
    this.child = child;
    this.capture(child);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.processes?.ended(this.task.id);
        this.exit = signal ? { exitCode: 128 + signalNumber(signal), signal } : { exitCode: code ?? 0 };
        resolve(this.exit);
      });
    });
    return new Promise((resolve, reject) => {
      child.once('spawn', () => {
        child.on('error', () => undefined);
        if (child.pid !== undefined && child.exitCode === null) {
          this.processes?.started(this.task.id, child.pid, this.task.spec.container.stopGracePeriodMs ?? DEFAULT_STOP_GRACE_PERIOD_MS);
        }
        resolve();
      });
      child.once('error', (error) => {
        this.log.end();
        reject(new Error(`could not start ${file}: ${error.message}`));
      });
    });
  }

  /** The child's output into the task's log (and this process's own, when inheriting); the log ends once both pipes close. */
  private capture(child: ChildProcess): void {
    const pipes: [OutputStream, NodeJS.ReadableStream | null, NodeJS.WritableStream][] = [
      ['stdout', child.stdout, process.stdout],
      ['stderr', child.stderr, process.stderr],
    ];
    for (const [stream, pipe, own] of pipes) {
      pipe?.on('data', (chunk: Buffer) => {
        this.log.write(stream, chunk);
        if (this.output === 'inherit') own.write(chunk);
      });
    }
    // After 'exit', once what the child wrote has all been read.
    child.once('close', () => this.log.end());
  }

  wait(): Promise<TaskExit> {
    if (!this.exited) return Promise.reject(new Error('the task was never started'));
    return this.exited;
  }

  async stop(gracePeriodMs: number): Promise<void> {
    const child = this.child;
    const exited = this.exited;
    if (!child || !exited || this.exit || child.pid === undefined) return;
    signalGroup(child.pid, 'SIGTERM');
    let cancel = (): void => undefined;
    const graceOver = new Promise<'grace over'>((resolve) => (cancel = this.timers.after(gracePeriodMs, () => resolve('grace over'))));
    const first = await Promise.race([exited, graceOver]);
    cancel();
    if (first === 'grace over') {
      signalGroup(child.pid, 'SIGKILL');
      await exited;
    }
  }

  async remove(): Promise<void> {
    await this.preparing?.catch(() => undefined);
    if (this.root === undefined) return;
    await this.roots.remove(this.root).catch(() => undefined);
  }
}
