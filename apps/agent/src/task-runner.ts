/**
 * Walks one task through the states an agent reports, driving its controller:
 *
 *   ACCEPTED → PREPARING → READY → STARTING → RUNNING → COMPLETE | FAILED
 *
 * prepare or start failing → REJECTED with the error; the work ending with a non-zero
 * exit code → FAILED with it. A desired state of SHUTDOWN (or later) stops the task
 * wherever it is → SHUTDOWN. A desired state of READY holds it at READY until RUNNING is
 * wanted. Reported states only move forward.
 */
import { TaskState, taskStateName } from '@shoal/contracts';
import type { TaskStatus } from '@shoal/contracts';
import { DEFAULT_STOP_GRACE_PERIOD_MS } from './executor';
import { TaskFailure } from './executor';
import type { AssignedTask, TaskController, TaskExit } from './executor';

/** A task status as the agent reports it. */
export interface TaskStatusReport extends TaskStatus {
  readonly taskId: string;
}

export type StatusSink = (status: TaskStatusReport) => void;

/** Stop the task: the managers want it shut down (or removed). */
export const wantsStop = (desired: TaskState): boolean => desired >= TaskState.SHUTDOWN;

type Outcome<T> = { readonly kind: 'done'; readonly value: T } | { readonly kind: 'failed'; readonly error: unknown } | { readonly kind: 'stopped' };

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The message of each state a task is walked into, in SwarmKit's words (its agent's
 * controller: `prepared` once ready, `started` once running, as `docker inspect` of a task
 * shows); any other state is named.
 */
const STATE_MESSAGES: ReadonlyMap<TaskState, string> = new Map([
  [TaskState.READY, 'prepared'],
  [TaskState.RUNNING, 'started'],
]);

/** A state's message, when the step that reached it gives none. */
export const stateMessage = (state: TaskState): string => STATE_MESSAGES.get(state) ?? taskStateName(state).toLowerCase();

export class TaskRunner {
  private current: TaskStatusReport;
  private desired: TaskState;
  private stopRequested = false;
  private signalStop!: () => void;
  private readonly stopSignal = new Promise<void>((resolve) => (this.signalStop = resolve));
  private desiredChanged: (() => void) | undefined;
  /** Resolves when the task has reached a terminal state. */
  readonly done: Promise<void>;

  constructor(
    readonly task: AssignedTask,
    desired: TaskState,
    private readonly controller: TaskController,
    private readonly report: StatusSink,
    private readonly now: () => Date = () => new Date(),
    /** The task was started before this agent was: the controller resumes it (start), no prepare. */
    private readonly adopted = false,
  ) {
    this.desired = desired;
    this.current = { taskId: task.id, state: TaskState.ASSIGNED, at: now().toISOString() };
    if (wantsStop(desired)) this.requestStop();
    this.done = this.run();
  }

  /** The last status reported. */
  get status(): TaskStatusReport {
    return this.current;
  }

  get desiredState(): TaskState {
    return this.desired;
  }

  /** The managers changed what they want of the task. */
  setDesired(desired: TaskState): void {
    if (desired === this.desired) return;
    this.desired = desired;
    if (wantsStop(desired)) this.requestStop();
    this.desiredChanged?.();
  }

  /** Stops the task (if it still runs) and resolves once it is terminal. */
  stop(): Promise<void> {
    this.requestStop();
    return this.done;
  }

  /** Stops the task, then has its controller clean up after it: the node forgot the task. */
  async remove(): Promise<void> {
    await this.stop();
    await this.controller.remove();
  }

  private requestStop(): void {
    if (this.stopRequested) return;
    this.stopRequested = true;
    this.signalStop();
  }

  private transition(state: TaskState, extra: Partial<Omit<TaskStatusReport, 'taskId' | 'state' | 'at'>> = {}): void {
    if (state <= this.current.state) return;
    const container = this.controller.containerStatus?.();
    this.current = { taskId: this.task.id, state, at: this.now().toISOString(), message: extra.message ?? stateMessage(state), ...extra, ...container };
    this.report(this.current);
  }

  /**
   * A failure: the task keeps the message of the step it failed in (`started` for a task
   * that ran), the error says what went wrong, as SwarmKit's agent reports it.
   */
  private fault(state: TaskState, extra: { readonly err: string; readonly exitCode?: number }): void {
    this.transition(state, { message: this.current.message, ...extra });
  }

  /** Runs a step, unless a stop came first (or comes before it ends); `evenIfStopping`: runs it, and waits for it, all the same. */
  private step<T>(work: () => Promise<T>, evenIfStopping = false): Promise<Outcome<T>> {
    if (this.stopRequested && !evenIfStopping) return Promise.resolve({ kind: 'stopped' });
    let running: Promise<T>;
    try {
      running = work();
    } catch (error) {
      return Promise.resolve({ kind: 'failed', error });
    }
    const outcome = running.then(
      (value): Outcome<T> => ({ kind: 'done', value }),
      (error: unknown): Outcome<T> => ({ kind: 'failed', error }),
    );
    if (evenIfStopping) return outcome;
    return Promise.race([outcome, this.stopSignal.then((): Outcome<T> => ({ kind: 'stopped' }))]);
  }

  private async run(): Promise<void> {
    if (this.adopted) return this.resume();
    this.transition(TaskState.ACCEPTED);
    if (this.stopRequested) return this.transition(TaskState.SHUTDOWN);

    this.transition(TaskState.PREPARING);
    const prepared = await this.step(() => this.controller.prepare());
    if (prepared.kind === 'stopped') return this.shutdown();
    if (prepared.kind === 'failed') return this.fault(TaskState.REJECTED, { err: errorText(prepared.error) });
    this.transition(TaskState.READY);

    while (this.desired < TaskState.RUNNING && !this.stopRequested) {
      await Promise.race([new Promise<void>((resolve) => (this.desiredChanged = resolve)), this.stopSignal]);
      this.desiredChanged = undefined;
    }
    if (this.stopRequested) return this.shutdown();

    this.transition(TaskState.STARTING);
    return this.startAndWait();
  }

  /**
   * An adopted task: how it ended while no agent was there is reported as it was, whatever
   * the managers want now; else its controller resumes it where it is (stopped, if that is
   * what they want).
   */
  private async resume(): Promise<void> {
    const ended = await this.step(async () => (await this.controller.endedBefore?.()) ?? null, true);
    if (ended.kind === 'done' && ended.value) return this.ended(ended.value);
    if (this.stopRequested) return this.shutdown();
    return this.startAndWait();
  }

  private async startAndWait(): Promise<void> {
    const started = await this.step(() => this.controller.start());
    if (started.kind === 'stopped') return this.shutdown();
    if (started.kind === 'failed') return this.failed(started.error, TaskState.REJECTED);
    this.transition(TaskState.RUNNING);

    const ended = await this.step(() => this.controller.wait());
    if (ended.kind === 'stopped') return this.shutdown();
    if (ended.kind === 'failed') return this.failed(ended.error, TaskState.FAILED);
    this.ended(ended.value);
  }

  /** The work ended by itself: COMPLETE, or FAILED with how. */
  private ended({ exitCode, signal, detail }: TaskExit): void {
    if (exitCode === 0) return this.transition(TaskState.COMPLETE, { message: 'finished', exitCode });
    const how = signal ? `killed by ${signal} (exit code ${exitCode})` : `exited with code ${exitCode}`;
    this.fault(TaskState.FAILED, { err: `task ${how}${detail ? `: ${detail}` : ''}`, exitCode });
  }

  /** A step's error: a TaskFailure fails the task (with its exit code, if any), any other error is `otherwise`. */
  private failed(error: unknown, otherwise: TaskState): void {
    if (!(error instanceof TaskFailure)) return this.fault(otherwise, { err: errorText(error) });
    this.fault(TaskState.FAILED, { err: error.message, ...(error.exitCode !== undefined ? { exitCode: error.exitCode } : {}) });
  }

  private async shutdown(): Promise<void> {
    const grace = this.task.spec.container.stopGracePeriodMs ?? DEFAULT_STOP_GRACE_PERIOD_MS;
    try {
      await this.controller.stop(grace);
    } catch (error) {
      return this.fault(TaskState.FAILED, { err: `could not stop the task: ${errorText(error)}` });
    }
    this.transition(TaskState.SHUTDOWN);
  }
}
