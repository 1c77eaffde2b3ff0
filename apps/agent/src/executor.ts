/**
 * What runs a node's tasks. An executor describes the node and makes one controller per
 * task; the task runner walks each controller through the task states (SwarmKit's
 * agent/exec: Prepare, Start, Wait, Shutdown, Remove).
 */
import type { AssignedNetwork, ConfigReference, PortConfig, TaskSpec } from '@shoal/contracts';
import type { NodeDescriptionMessage } from '@shoal/protocol';

/** A config (or secret) a task uses: where the task finds it (`reference.file`) and the bytes the node was sent. */
export interface TaskConfig {
  readonly reference: ConfigReference;
  readonly data: Buffer;
  /** A secret: its file is kept in memory only (never on the node's disk). */
  readonly secret?: true;
}

/** A task as the dispatcher assigned it, its spec decoded and the configs it names resolved. */
export interface AssignedTask {
  readonly id: string;
  readonly serviceId: string;
  readonly serviceName: string;
  readonly slot: number;
  readonly spec: TaskSpec;
  /** One per reference in `spec.container.configs`, in its order, then one per secret in `spec.container.secrets`. */
  readonly configs: readonly TaskConfig[];
  /** The ports the allocator published for the task's service (an executor that can publishes them on the node). */
  readonly ports?: readonly PortConfig[];
  /** The networks the allocator attached the task to, with its addresses (an executor that can makes them real on the node). */
  readonly networks?: readonly AssignedNetwork[];
}

/** How a task's work ended on its own. */
export interface TaskExit {
  readonly exitCode: number;
  /** The signal that ended it, when one did. */
  readonly signal?: string;
  /** What else the executor knows of how it ended (an engine's error, an OOM kill). */
  readonly detail?: string;
}

/**
 * A step's error that fails the task (FAILED) rather than rejecting it: the work began
 * and went wrong (a container that died, or turned unhealthy, before it was up).
 */
export class TaskFailure extends Error {
  constructor(
    message: string,
    readonly exitCode?: number,
  ) {
    super(message);
    this.name = 'TaskFailure';
  }
}

/** One task's work. Each step's error is the task's error (the runner reports it). */
export interface TaskController {
  /** Gets everything ready to start (PREPARING → READY); a failure rejects the task. */
  prepare(): Promise<void>;
  /** Starts the work (STARTING → RUNNING); a failure rejects the task. */
  start(): Promise<void>;
  /** Resolves when the work ends by itself. */
  wait(): Promise<TaskExit>;
  /** Stops the work, whatever step it is in: asks politely, waits the grace period, then forces. */
  stop(gracePeriodMs: number): Promise<void>;
  /** Cleans up what prepare made, once the task is stopped and the node forgot it. Never rejects: what it cannot remove stays. */
  remove(): Promise<void>;
  /** An adopted task's exit, if its work ended before it was adopted (while no agent was there); undefined if it did not. */
  endedBefore?(): Promise<TaskExit | undefined>;
  /**
   * The task's container as it is now, once one was made (SwarmKit's ContainerStatuser):
   * reported with each state the task reaches. Absent, or undefined: no container (yet).
   */
  containerStatus?(): TaskContainer | undefined;
}

/** A task's container, as its status reports it (Docker's ContainerStatus.ContainerID and PID). */
export interface TaskContainer {
  /** The engine's id of the container (64 hex digits). */
  readonly containerId: string;
  /** Its process on the node while it runs; 0 before it started and once it stopped. */
  readonly pid: number;
}

/** Which of a task's output streams. */
export type OutputStream = 'stdout' | 'stderr';

/**
 * When a line was written, as the controller knows it (an engine's log): `at` in ms since
 * the epoch, and `time` the writer's own text of it (RFC 3339 with nanoseconds, as an
 * engine gives it), kept whole: a Date holds no more than milliseconds.
 */
export interface WrittenAt {
  readonly at: number;
  readonly time?: string;
}

/** Where a controller puts what its task writes (the task's log). */
export interface TaskOutput {
  /** `at`: when it was written, where the controller knows (an engine's log); else now. */
  write(stream: OutputStream, chunk: Buffer | string, at?: WrittenAt): void;
  /** The task writes no more: a line it did not finish counts as written. */
  end(): void;
}

export interface Executor {
  /** The node as the dispatcher should see it. */
  describe(): NodeDescriptionMessage;
  /** The controller of one task, which writes the task's output to `output`. */
  controller(task: AssignedTask, output: TaskOutput): TaskController;
  /**
   * The controller of a task that was started before this agent was (an agent restarted,
   * or killed): one that takes over its work where it is, if the executor can find it
   * (its `start` resumes it, its `wait` hears how it ends, even if it ended meanwhile;
   * work it cannot find fails the start). Absent: such a task did not survive the agent.
   */
  adopt?(task: AssignedTask, output: TaskOutput): TaskController;
  /** The node has these tasks and no others (a COMPLETE set): work left by any other goes. */
  keepOnly?(taskIds: ReadonlySet<string>): void;
}

/** The task's environment, `KEY=value` entries, as a record (later entries win). */
export const taskEnv = (spec: TaskSpec): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const entry of spec.container.env ?? []) {
    const equals = entry.indexOf('=');
    if (equals > 0) env[entry.slice(0, equals)] = entry.slice(equals + 1);
    else if (equals < 0 && entry.length > 0) env[entry] = '';
  }
  return env;
};

/** Docker's default stop grace period. */
export const DEFAULT_STOP_GRACE_PERIOD_MS = 10_000;
