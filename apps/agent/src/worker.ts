/**
 * A node's tasks, kept in step with its assignments (SwarmKit's agent/worker.go). A
 * COMPLETE message is the whole set: tasks not in it are stopped and forgotten. An
 * INCREMENTAL message carries only changes: UPDATE starts a task or changes its desired
 * state, REMOVE stops and forgets it (and has its controller clean up after it). Each
 * task's states go to the status sink. Each task's output is kept in its log, which goes
 * with the task when it is forgotten; the worker finds the tasks a log subscription
 * selects, and tells listeners of each task it takes on. Given a store (an exec agent's
 * state dir, task-log-file.ts), each log is kept there too: a task taken on begins its log
 * with what an earlier agent kept of it, the first COMPLETE set says which of those the
 * node still has (the others go), and a task's copy goes when the node forgets it.
 *
 * The configs the node's tasks use come in the same messages, before the tasks that need
 * them, and are kept the same way (COMPLETE: the whole set; INCREMENTAL: UPDATE keeps one,
 * REMOVE forgets it). A task is given its configs as it is taken on; one whose spec names
 * a config the node has not got is REJECTED ("config … not found"), as SwarmKit fails it.
 * Secrets come and go the same way, their bytes opened by the dispatcher and kept in memory
 * only; a task's secrets are given to it as configs marked secret, each at its target
 * (a relative one under /run/secrets, as Docker's).
 */
import { SECRETS_DIR, TaskState, isTerminal } from '@shoal/contracts';
import type { AssignedNetwork, PortConfig, TaskSpec } from '@shoal/contracts';
import type { AssignmentMessage, AssignmentsMessage, ConfigChangeMessage, LogSelectorMessage } from '@shoal/protocol';
import type { AssignedTask, Executor, TaskConfig } from './executor';
import { TaskLog } from './task-log';
import type { TaskLogOptions } from './task-log';
import { TaskRunner, wantsStop } from './task-runner';
import type { StatusSink, TaskStatusReport } from './task-runner';

/** What the worker holds for a task: its runner, or the outcome of one it cannot run. */
interface HeldTask {
  readonly status: TaskStatusReport;
  setDesired(desired: TaskState): void;
  stop(): Promise<void>;
  /** Stops it and cleans up after it: the node forgot it. */
  remove(): Promise<void>;
}

/** A config the node was sent: its name and its bytes. */
export interface HeldConfig {
  readonly name: string;
  readonly data: Buffer;
  /** A secret, not a config. */
  readonly secret?: boolean;
}

/** A task the worker holds, with its output. */
export interface LoggedTask {
  readonly taskId: string;
  readonly serviceId: string;
  readonly log: TaskLog;
}

/** Whether a log subscription's selector names the task or its service. */
export const selects = (selector: LogSelectorMessage, task: Pick<LoggedTask, 'taskId' | 'serviceId'>): boolean =>
  selector.serviceIds.includes(task.serviceId) || selector.taskIds.includes(task.taskId);

/** A task's log as kept besides memory: what removes it. */
export interface KeptTaskLog {
  /** Stops keeping it and removes what was kept (the node forgot the task). Never rejects. */
  remove(): Promise<void>;
}

/** Where a worker keeps its tasks' logs besides memory (an exec agent's state dir), if anywhere. */
export interface TaskLogStore {
  /** Begins the task's log with what an earlier agent kept of it, if anything, and keeps what it is written from now on. */
  keep(taskId: string, log: TaskLog): KeptTaskLog;
  /** The node has these tasks and no others (a COMPLETE set): what earlier agents kept of any other goes. */
  keepOnly(taskIds: ReadonlySet<string>): void;
}

interface Entry extends LoggedTask {
  readonly held: HeldTask;
  readonly kept?: KeptTaskLog;
}

/** A task the worker will not run: its spec is unreadable, or it was started before this agent did. */
class SettledTask implements HeldTask {
  constructor(readonly status: TaskStatusReport) {}
  setDesired(): void {}
  stop(): Promise<void> {
    return Promise.resolve();
  }
  remove(): Promise<void> {
    return Promise.resolve();
  }
}

/** The configs a task's spec names, each with the bytes the node was sent; an error naming the first the node has not got. */
const resolveConfigs = (spec: TaskSpec, configOf: (id: string) => HeldConfig | undefined): TaskConfig[] => {
  const references = spec.container.configs ?? [];
  if (!Array.isArray(references)) throw new Error("the task's spec has a configs field that is not a list");
  return references.map((reference) => {
    const config = configOf(reference.configId);
    if (!config) throw new Error(`config ${reference.configName} (${reference.configId}) not found: the node was not sent it`);
    return { reference, data: config.data };
  });
};

/** Where a secret's file goes in the task: its target, a relative one under /run/secrets. */
export const secretTarget = (name: string): string => (name.startsWith('/') ? name : `${SECRETS_DIR}/${name}`);

/** The secrets a task's spec names, as configs marked secret; an error naming the first the node has not got. */
const resolveSecrets = (spec: TaskSpec, configOf: (id: string) => HeldConfig | undefined): TaskConfig[] => {
  const references = spec.container.secrets ?? [];
  if (!Array.isArray(references)) throw new Error("the task's spec has a secrets field that is not a list");
  return references.map(({ secretId, secretName, file }) => {
    const secret = configOf(secretId);
    if (!secret?.secret) throw new Error(`secret ${secretName} (${secretId}) not found: the node was not sent it`);
    return { reference: { configId: secretId, configName: secretName, file: { ...file, name: secretTarget(file.name) } }, data: secret.data, secret: true };
  });
};

/** A list the assignment carries as JSON (empty: none), named `what` in its errors. */
const decodeList = <T>(json: string | undefined, what: string): T[] | undefined => {
  if (!json) return undefined;
  let list: unknown;
  try {
    list = JSON.parse(json);
  } catch (error) {
    throw new Error(`the task's ${what} are not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(list)) throw new Error(`the task's ${what} are not a list`);
  return list.length > 0 ? (list as T[]) : undefined;
};

export const decodeAssignment = (assignment: AssignmentMessage, configOf: (id: string) => HeldConfig | undefined = () => undefined): AssignedTask => {
  let spec: unknown;
  try {
    spec = JSON.parse(assignment.specJson);
  } catch (error) {
    throw new Error(`the task's spec is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const container = (spec as { container?: unknown } | null)?.container;
  if (typeof container !== 'object' || container === null) throw new Error("the task's spec has no container");
  const taskSpec = spec as TaskSpec;
  const configs = [...resolveConfigs(taskSpec, configOf), ...resolveSecrets(taskSpec, configOf)];
  const ports = decodeList<PortConfig>(assignment.portsJson, 'published ports');
  const networks = decodeList<AssignedNetwork>(assignment.networksJson, 'networks');
  return {
    id: assignment.taskId,
    serviceId: assignment.serviceId,
    serviceName: assignment.serviceName,
    slot: assignment.slot,
    spec: taskSpec,
    configs,
    ...(ports ? { ports } : {}),
    ...(networks ? { networks } : {}),
  };
};

export class Worker {
  private readonly tasks = new Map<string, Entry>();
  /** The configs the node was sent, by id. */
  private readonly configs = new Map<string, HeldConfig>();
  private readonly added = new Set<(task: LoggedTask) => void>();
  /** Every task's log reads the worker's clock: one options object for all of them. */
  private readonly logOptions: TaskLogOptions = { now: () => this.now().getTime() };

  constructor(
    private readonly executor: Executor,
    private readonly report: StatusSink,
    private readonly now: () => Date = () => new Date(),
    /** Where each task's log is kept besides memory, if anywhere (never for a simulated fleet: a file a task). */
    private readonly logStore?: TaskLogStore,
  ) {}

  /** Applies one message of the assignments stream: its configs first, then its tasks. */
  apply(message: AssignmentsMessage): void {
    this.applyConfigs(message.type, message.configs ?? []);
    if (message.type === 'COMPLETE') {
      const wanted = new Set(message.changes.filter((change) => change.action === 'UPDATE').map((change) => change.assignment.taskId));
      this.logStore?.keepOnly(wanted);
      this.executor.keepOnly?.(wanted);
      for (const taskId of [...this.tasks.keys()]) if (!wanted.has(taskId)) this.remove(taskId);
    }
    for (const change of message.changes) {
      if (change.action === 'REMOVE') this.remove(change.assignment.taskId);
      else this.update(change.assignment);
    }
  }

  /** The last status of each task the worker holds. */
  statuses(): TaskStatusReport[] {
    return [...this.tasks.values()].map((task) => task.held.status);
  }

  get size(): number {
    return this.tasks.size;
  }

  /** The configs the node holds, by id. */
  heldConfigs(): ReadonlyMap<string, HeldConfig> {
    return this.configs;
  }

  /** Stops every task the worker holds (the agent is going away). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.tasks.values()].map((task) => task.held.stop()));
  }

  /** The tasks it holds that `selector` selects, with their logs. */
  logsOf(selector: LogSelectorMessage): LoggedTask[] {
    return [...this.tasks.values()].filter((task) => selects(selector, task));
  }

  /** Calls `listener` with each task it takes on from now on; returns what stops it. */
  onTaskAdded(listener: (task: LoggedTask) => void): () => void {
    this.added.add(listener);
    return () => void this.added.delete(listener);
  }

  private update(assignment: AssignmentMessage): void {
    const held = this.tasks.get(assignment.taskId)?.held;
    if (held) {
      held.setDesired(assignment.desiredState as TaskState);
      // The log is behind what this agent saw (a status lost with a broken session): say it again.
      if (held.status.state > assignment.observedState && held.status.state >= TaskState.ACCEPTED) this.report(held.status);
      return;
    }
    const log = new TaskLog(this.logOptions);
    // What an earlier agent kept of the task comes first, before anything it writes now.
    const kept = this.logStore?.keep(assignment.taskId, log);
    const entry: Entry = { taskId: assignment.taskId, serviceId: assignment.serviceId, log, kept, held: this.begin(assignment, log) };
    this.tasks.set(assignment.taskId, entry);
    for (const listener of this.added) listener(entry);
  }

  private begin(assignment: AssignmentMessage, log: TaskLog): HeldTask {
    const observed = assignment.observedState as TaskState;
    const desired = assignment.desiredState as TaskState;
    if (isTerminal(observed)) return new SettledTask({ taskId: assignment.taskId, state: observed, at: this.now().toISOString() });
    if (observed >= TaskState.ACCEPTED && this.executor.adopt) {
      // Started before this agent was, by an executor whose work outlives its agent (a container): take it over.
      const adopted = this.taskOf(assignment);
      if ('status' in adopted) return adopted;
      return new TaskRunner(adopted, desired, this.executor.adopt(adopted, log), this.report, this.now, true);
    }
    if (observed >= TaskState.ACCEPTED) {
      // Started before this agent was: whatever ran it is gone with the agent that started it.
      return this.settle(
        wantsStop(desired)
          ? { taskId: assignment.taskId, state: TaskState.SHUTDOWN, at: this.now().toISOString(), message: 'shutdown' }
          : { taskId: assignment.taskId, state: TaskState.FAILED, at: this.now().toISOString(), message: 'failed', err: 'the agent restarted and the task did not survive it' },
      );
    }
    const task = this.taskOf(assignment);
    if ('status' in task) return task;
    let controller;
    try {
      controller = this.executor.controller(task, log);
    } catch (error) {
      return this.settle({ taskId: task.id, state: TaskState.REJECTED, at: this.now().toISOString(), message: 'rejected', err: error instanceof Error ? error.message : String(error) });
    }
    return new TaskRunner(task, desired, controller, this.report, this.now);
  }

  /** The assigned task, decoded with its configs; one that does not decode is settled REJECTED. */
  private taskOf(assignment: AssignmentMessage): AssignedTask | SettledTask {
    try {
      return decodeAssignment(assignment, (id) => this.configs.get(id));
    } catch (error) {
      return this.settle({ taskId: assignment.taskId, state: TaskState.REJECTED, at: this.now().toISOString(), message: 'rejected', err: (error as Error).message });
    }
  }

  private settle(status: TaskStatusReport): SettledTask {
    this.report(status);
    return new SettledTask(status);
  }

  private remove(taskId: string): void {
    const entry = this.tasks.get(taskId);
    if (!entry) return;
    this.tasks.delete(taskId);
    entry.held.setDesired(TaskState.SHUTDOWN);
    void entry.held.remove();
    void entry.kept?.remove();
  }

  /** A COMPLETE message's configs are all the node keeps; an INCREMENTAL one's are kept or forgotten one by one. */
  private applyConfigs(type: AssignmentsMessage['type'], changes: readonly ConfigChangeMessage[]): void {
    if (type === 'COMPLETE') this.configs.clear();
    for (const { action, config } of changes) {
      if (action === 'REMOVE') this.configs.delete(config.id);
      else this.configs.set(config.id, { name: config.name, data: config.data, ...(config.secret ? { secret: true } : {}) });
    }
  }
}
