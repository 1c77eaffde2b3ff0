/**
 * The simulated executor, after Nomad's mock driver: no process runs; the task's env says
 * how it behaves.
 *   SIM_RUN_FOR      how long it runs (2s, 500ms); absent: until it is shut down
 *   SIM_EXIT_CODE    its exit code when it ends by itself (default 0; non-zero → FAILED)
 *   SIM_START_ERROR  it fails to start with this message (→ REJECTED)
 *   SIM_START_DELAY  time spent getting going: half in PREPARING, half in STARTING
 * Every wait rides on the shared timers, so thousands of simulated tasks cost no threads
 * and one interval. A task's log holds one line, written as it starts, that says so, and
 * names the configs the node was sent for it. They are written nowhere; a task whose
 * configs the node was not sent is rejected all the same (the worker's check).
 */
import type { NodeDescriptionMessage } from '@shoal/protocol';
import { parseDuration } from './duration';
import { taskEnv } from './executor';
import type { AssignedTask, Executor, TaskController, TaskExit, TaskOutput } from './executor';
import type { Cancel, Timers } from './timers';

export interface SimulatedBehaviour {
  readonly runForMs?: number;
  readonly exitCode: number;
  readonly startError?: string;
  readonly startDelayMs: number;
}

/** How a simulated task behaves, from its env; a clear error for a value that does not parse. */
export const simulatedBehaviour = (env: Readonly<Record<string, string>>): SimulatedBehaviour => {
  const exitText = env.SIM_EXIT_CODE?.trim();
  if (exitText !== undefined && !/^-?\d+$/.test(exitText)) throw new Error(`SIM_EXIT_CODE: expected a whole number, got "${exitText}"`);
  return {
    runForMs: env.SIM_RUN_FOR === undefined || env.SIM_RUN_FOR.trim() === '' ? undefined : parseDuration(env.SIM_RUN_FOR, 'SIM_RUN_FOR'),
    exitCode: exitText === undefined ? 0 : Number(exitText),
    startError: env.SIM_START_ERROR === undefined || env.SIM_START_ERROR === '' ? undefined : env.SIM_START_ERROR,
    startDelayMs: env.SIM_START_DELAY === undefined || env.SIM_START_DELAY.trim() === '' ? 0 : parseDuration(env.SIM_START_DELAY, 'SIM_START_DELAY'),
  };
};

/** What a simulated task's log says: what would have run, with the configs and secrets the node was sent for it (never a secret's bytes), and that nothing did. */
export const simulatedLine = (task: AssignedTask): string => {
  const { image, command = [], args = [] } = task.spec.container;
  const argv = [...command, ...args];
  const files = (secret: boolean): string[] =>
    task.configs
      .filter((config) => (config.secret ?? false) === secret)
      .map(({ reference, data }) => `${reference.configName} at ${reference.file.name} (${data.length} ${data.length === 1 ? 'byte' : 'bytes'})`);
  const configs = files(false);
  const secrets = files(true);
  return (
    `simulated task: image ${image}${argv.length > 0 ? `, command ${argv.join(' ')}` : ''}` +
    `${configs.length > 0 ? `; config ${configs.join(', ')}` : ''}${secrets.length > 0 ? `; secret ${secrets.join(', ')}` : ''}; nothing runs on this simulated node`
  );
};

export class SimulatedExecutor implements Executor {
  constructor(
    private readonly description: NodeDescriptionMessage,
    private readonly timers: Timers,
  ) {}

  describe(): NodeDescriptionMessage {
    return this.description;
  }

  controller(task: AssignedTask, output: TaskOutput): TaskController {
    return new SimulatedController(task, output, this.timers);
  }
}

class SimulatedController implements TaskController {
  private behaviour: SimulatedBehaviour | undefined;
  private cancelWait: Cancel | undefined;
  private wake: (() => void) | undefined;
  private stopped = false;
  private ended: Promise<TaskExit> | undefined;

  constructor(
    private readonly task: AssignedTask,
    private readonly output: TaskOutput,
    private readonly timers: Timers,
  ) {}

  /** Waits `ms` on the shared timers; a stop ends the wait early. */
  private pause(ms: number): Promise<void> {
    if (ms <= 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
      this.cancelWait = this.timers.after(ms, resolve);
    });
  }

  async prepare(): Promise<void> {
    this.behaviour = simulatedBehaviour(taskEnv(this.task.spec));
    await this.pause(Math.floor(this.behaviour.startDelayMs / 2));
  }

  async start(): Promise<void> {
    const behaviour = this.behaviour ?? simulatedBehaviour(taskEnv(this.task.spec));
    await this.pause(behaviour.startDelayMs - Math.floor(behaviour.startDelayMs / 2));
    if (behaviour.startError !== undefined) throw new Error(behaviour.startError);
    this.output.write('stdout', `${simulatedLine(this.task)}\n`);
    const { runForMs, exitCode } = behaviour;
    this.ended =
      runForMs === undefined
        ? new Promise<TaskExit>(() => undefined)
        : new Promise<TaskExit>((resolve) => {
            this.cancelWait = this.timers.after(runForMs, () => resolve({ exitCode }));
          });
  }

  wait(): Promise<TaskExit> {
    return this.ended ?? Promise.reject(new Error('the task was never started'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelWait?.();
    this.wake?.();
  }

  /** Nothing was made: a simulated task's configs are checked (the worker's part) and go nowhere. */
  async remove(): Promise<void> {}
}
