/**
 * The exec executor: a task's container command and args run as a real child process on
 * this host, with the task's env (over PATH and HOME) in its working directory, as the
 * task's user when it names one (a user this host does not have rejects the task). The child
 * leads its own process group, so stopping it reaches everything it started: SIGTERM,
 * the grace period, then SIGKILL. Given a TaskProcessRecord, each running process is
 * recorded there, for an agent restarted after a crash to stop what this one left.
 * The child's stdout and stderr are pipes: what it writes goes to the task's log (and to
 * this process's own stdout and stderr too, with `output: 'inherit'`).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { constants } from 'node:os';
import type { NodeDescriptionMessage } from '@shoal/protocol';
import { DEFAULT_STOP_GRACE_PERIOD_MS, taskEnv } from './executor';
import type { AssignedTask, Executor, OutputStream, TaskController, TaskExit, TaskOutput } from './executor';
import { hostDescription } from './node-description';
import { signalGroup } from './process-group';
import type { TaskProcessRecord } from './task-processes';
import { resolveTaskUser } from './task-user';
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
}

export class ExecExecutor implements Executor {
  constructor(private readonly options: ExecExecutorOptions) {}

  describe(): NodeDescriptionMessage {
    return hostDescription({ hostname: this.options.hostname, labels: this.options.labels, engineVersion: 'shoal-agent exec' });
  }

  controller(task: AssignedTask, output: TaskOutput): TaskController {
    return new ExecController(task, output, this.options.timers, this.options.output ?? 'ignore', this.options.processes);
  }
}

const signalNumber = (signal: NodeJS.Signals): number => constants.signals[signal] ?? 0;

class ExecController implements TaskController {
  private child: ChildProcess | undefined;
  private exited: Promise<TaskExit> | undefined;
  private exit: TaskExit | undefined;
  /** Who the task runs as when its spec names a user; the agent's own user otherwise. */
  private identity: TaskIdentity | undefined;

  constructor(
    private readonly task: AssignedTask,
    private readonly log: TaskOutput,
    private readonly timers: Timers,
    private readonly output: 'inherit' | 'ignore',
    private readonly processes: TaskProcessRecord | undefined,
  ) {}

  private argv(): string[] {
    const { command = [], args = [] } = this.task.spec.container;
    return [...command, ...args];
  }

  async prepare(): Promise<void> {
    if (this.argv().length === 0) throw new Error('the task has no command to run: its container command and args are empty');
    const dir = this.task.spec.container.dir;
    if (dir) {
      const info = await stat(dir).catch(() => undefined);
      if (!info?.isDirectory()) throw new Error(`the task's working directory ${dir} does not exist`);
    }
    const user = this.task.spec.container.user?.trim();
    if (user) {
      const [passwd, group] = await Promise.all([readFile('/etc/passwd', 'utf8').catch(() => ''), readFile('/etc/group', 'utf8').catch(() => '')]);
      this.identity = resolveTaskUser(user, { passwd, group });
    }
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

}
