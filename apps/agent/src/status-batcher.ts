/**
 * Task statuses on their way to the dispatcher: gathered for at most `maxDelayMs`
 * (100 ms) or until `maxItems` (10,000) are waiting, then sent as one batch, as SwarmKit
 * batches them. While the session is down they wait; a failed send puts them back in
 * front, in order.
 *
 * As SwarmKit's agent reports only a task's latest status, a status waiting to go out is
 * replaced by a later one of the same task while it is still on the way up (ACCEPTED …
 * STARTING): a task that starts within one batch is reported RUNNING once, not five
 * times. RUNNING and what comes after it are never replaced, so the log always has when a
 * task started and how it ended.
 */
import { TaskState } from '@shoal/contracts';
import type { TaskStatusMessage } from '@shoal/protocol';
import type { TaskStatusReport } from './task-runner';
import type { Cancel, Timers } from './timers';

export type SendStatuses = (updates: TaskStatusMessage[]) => Promise<void>;

export interface BatchOptions {
  readonly maxDelayMs?: number;
  readonly maxItems?: number;
}

export const toStatusMessage = (status: TaskStatusReport): TaskStatusMessage => ({
  taskId: status.taskId,
  state: status.state,
  at: status.at,
  message: status.message ?? '',
  err: status.err ?? '',
  hasExitCode: status.exitCode !== undefined,
  exitCode: status.exitCode ?? 0,
  containerId: status.containerId ?? '',
  pid: status.pid ?? 0,
});

export class StatusBatcher {
  private pending: TaskStatusMessage[] = [];
  /** A task's waiting status that a later one may still replace (one before RUNNING), by task id. */
  private readonly replaceable = new Map<string, TaskStatusMessage>();
  private send: SendStatuses | undefined;
  private sending: Promise<boolean> | undefined;
  private cancelTimer: Cancel | undefined;
  private readonly maxDelayMs: number;
  private readonly maxItems: number;

  constructor(
    private readonly timers: Timers,
    options: BatchOptions = {},
  ) {
    this.maxDelayMs = options.maxDelayMs ?? 100;
    this.maxItems = options.maxItems ?? 10_000;
  }

  get waiting(): number {
    return this.pending.length;
  }

  push(status: TaskStatusReport): void {
    const message = toStatusMessage(status);
    const waiting = this.replaceable.get(message.taskId);
    if (waiting && message.state >= waiting.state) {
      Object.assign(waiting, message);
      if (message.state >= TaskState.RUNNING) this.replaceable.delete(message.taskId);
      return;
    }
    this.pending.push(message);
    if (message.state < TaskState.RUNNING) this.replaceable.set(message.taskId, message);
    if (this.pending.length >= this.maxItems) this.flushSoon(0);
    else this.flushSoon(this.maxDelayMs);
  }

  /** A session is up: statuses go out through `send`. */
  connect(send: SendStatuses): void {
    this.send = send;
    if (this.pending.length > 0) this.flushSoon(0);
  }

  /** The session is down: statuses wait. */
  disconnect(): void {
    this.send = undefined;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  /** Sends everything waiting now (while a session is up); resolves when the sends are done. */
  async flush(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    while (this.send && this.pending.length > 0) {
      if (this.sending) {
        if (!(await this.sending)) return;
        continue;
      }
      // A failed send leaves them waiting for a retry or the next session.
      if (!(await this.sendBatch())) return;
    }
    if (this.sending) await this.sending;
  }

  private flushSoon(delayMs: number): void {
    if (!this.send) return;
    if (delayMs === 0) {
      this.cancelTimer?.();
      this.cancelTimer = undefined;
      void this.flush();
      return;
    }
    if (this.cancelTimer) return;
    this.cancelTimer = this.timers.after(delayMs, () => {
      this.cancelTimer = undefined;
      void this.flush();
    });
  }

  private sendBatch(): Promise<boolean> {
    const send = this.send;
    if (!send || this.pending.length === 0) return Promise.resolve(true);
    const batch = this.pending.splice(0, this.maxItems);
    // On their way now: a later status of the same task goes in a batch of its own.
    for (const message of batch) if (this.replaceable.get(message.taskId) === message) this.replaceable.delete(message.taskId);
    this.sending = send(batch).then(
      () => {
        this.sending = undefined;
        return true;
      },
      () => {
        this.sending = undefined;
        this.pending.unshift(...batch);
        if (this.send) this.flushSoon(this.maxDelayMs * 10);
        return false;
      },
    );
    return this.sending;
  }
}
