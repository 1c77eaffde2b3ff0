/**
 * One log subscription's PublishLogs call: the lines the subscription asks for of the
 * tasks it selects, oldest first across tasks, in messages of at most MESSAGE_LINES lines
 * and MESSAGE_BYTES bytes. Not following, a last message says `close` and the call ends.
 * Following, what the tasks write next goes out too, gathered for up to FOLLOW_FLUSH_MS,
 * until the dispatcher closes the subscription (a `close` message, and the call ends) or
 * the session ends (the call is cancelled).
 */
import type { LogMessage, LogOptionsMessage, LogSubscriptionMessage, PublishLogsMessage } from '@shoal/protocol';
import type { LogEntry, LogQuery, TaskLog } from './task-log';
import { wanted } from './task-log';
import type { Cancel, Timers } from './timers';
import type { LoggedTask } from './worker';

/** Lines a message carries at most. */
export const MESSAGE_LINES = 100;
/** Bytes of lines a message carries at most (a line is at most 16 KiB, so one always fits). */
export const MESSAGE_BYTES = 64 * 1024;
/** How long a line a task writes waits for others to go out with it, following. */
export const FOLLOW_FLUSH_MS = 50;

/** One PublishLogs call, as a publication uses it. */
export interface LogCall {
  write(message: PublishLogsMessage): unknown;
  end(): void;
  cancel(): void;
}

/** Who publishes: the node and its session. */
export interface Publisher {
  readonly nodeId: string;
  readonly sessionId: string;
}

/** What a subscription's options ask of each task's log; asking for neither stream is asking for both, as SwarmKit takes it. */
export const logQuery = (options: Partial<LogOptionsMessage> | null | undefined): LogQuery => {
  const both = !options?.stdout && !options?.stderr;
  return { stdout: both || !!options?.stdout, stderr: both || !!options?.stderr, tail: options?.tail ?? -1, sinceMs: options?.sinceMs ?? 0 };
};

export class LogPublication {
  private readonly query: LogQuery;
  private readonly followed = new Map<TaskLog, () => void>();
  private pending: LogMessage[] = [];
  private pendingBytes = 0;
  private cancelFlush: Cancel | undefined;
  private isOver = false;

  constructor(
    private readonly subscription: LogSubscriptionMessage,
    private readonly publisher: Publisher,
    private readonly call: LogCall,
    private readonly timers: Timers,
  ) {
    this.query = logQuery(subscription.options);
  }

  get following(): boolean {
    return !!this.subscription.options?.follow;
  }

  /** Whether it has ended: nothing more goes out. */
  get over(): boolean {
    return this.isOver;
  }

  /** Sends what the tasks have written; not following, then closes. */
  start(tasks: readonly LoggedTask[]): void {
    const backlog = tasks.flatMap((task) => task.log.read(this.query).map((entry) => ({ task, entry })));
    // Sorting is stable: lines written in the same ms keep their order within a task.
    backlog.sort((a, b) => a.entry.at - b.entry.at);
    for (const { task, entry } of backlog) this.queue(task, entry);
    this.flush();
    if (!this.following) return this.close();
    for (const task of tasks) this.follow(task);
  }

  /** A task taken on after the subscription came: what it writes goes out too. */
  include(task: LoggedTask): void {
    if (this.isOver || this.followed.has(task.log)) return;
    for (const entry of task.log.read(this.query)) this.queue(task, entry);
    this.follow(task);
  }

  /** Says the node has sent all it will, and ends the call. */
  close(): void {
    if (this.isOver) return;
    this.stop();
    this.call.write(this.message([], true));
    this.call.end();
  }

  /** Ends the call without a word (the session is over). */
  cancel(): void {
    if (this.isOver) return;
    this.stop();
    this.call.cancel();
  }

  /** Sends nothing more: the call is over (it failed, or the dispatcher ended it). */
  stop(): void {
    this.isOver = true;
    for (const unfollow of this.followed.values()) unfollow();
    this.followed.clear();
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    this.pending = [];
    this.pendingBytes = 0;
  }

  private follow(task: LoggedTask): void {
    this.followed.set(
      task.log,
      task.log.follow((entry) => {
        if (!wanted(this.query, entry)) return;
        this.queue(task, entry);
        this.cancelFlush ??= this.timers.after(FOLLOW_FLUSH_MS, () => this.flush());
      }),
    );
  }

  private queue(task: LoggedTask, entry: LogEntry): void {
    if (this.pending.length > 0 && this.pendingBytes + entry.data.length > MESSAGE_BYTES) this.flush();
    this.pending.push({
      taskId: task.taskId,
      serviceId: task.serviceId,
      nodeId: this.publisher.nodeId,
      // The writer's own time where it has one (an engine's, to the nanosecond), whole.
      at: entry.time ?? new Date(entry.at).toISOString(),
      stream: entry.stream === 'stdout' ? 'STDOUT' : 'STDERR',
      data: entry.data,
    });
    this.pendingBytes += entry.data.length;
    if (this.pending.length >= MESSAGE_LINES) this.flush();
  }

  private flush(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    if (this.isOver || this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.call.write(this.message(lines, false));
  }

  private message(messages: LogMessage[], close: boolean): PublishLogsMessage {
    const { nodeId, sessionId } = this.publisher;
    return { nodeId, sessionId, subscriptionId: this.subscription.id, messages, close };
  }
}
