import type { LogOptionsMessage, LogSubscriptionMessage, PublishLogsMessage } from '@shoal/protocol';
import { FOLLOW_FLUSH_MS, MESSAGE_BYTES, MESSAGE_LINES } from './log-publication';
import type { LogCall } from './log-publication';
import { LogPublisher } from './log-publisher';
import type { LogSource } from './log-publisher';
import { TaskLog } from './task-log';
import type { Cancel, Timers } from './timers';
import { selects } from './worker';
import type { LoggedTask } from './worker';

/** Timers that fire only when the spec says time has passed. */
class ManualTimers implements Timers {
  private due: { at: number; callback: () => void }[] = [];
  private now = 0;
  after(delayMs: number, callback: () => void): Cancel {
    const entry = { at: this.now + delayMs, callback };
    this.due.push(entry);
    return () => void (this.due = this.due.filter((other) => other !== entry));
  }
  advance(ms: number): void {
    this.now += ms;
    const ready = this.due.filter((entry) => entry.at <= this.now);
    this.due = this.due.filter((entry) => entry.at > this.now);
    for (const entry of ready) entry.callback();
  }
}

/** A PublishLogs call that records what goes on it. */
class RecordedCall implements LogCall {
  readonly messages: PublishLogsMessage[] = [];
  ended = false;
  cancelled = false;
  constructor(readonly done: (error: Error | null) => void) {}
  write(message: PublishLogsMessage): void {
    if (this.ended || this.cancelled) throw new Error('written after the call was over');
    this.messages.push(message);
  }
  end(): void {
    this.ended = true;
  }
  cancel(): void {
    this.cancelled = true;
  }
  /** The lines sent, as task:stream:text. */
  get lines(): string[] {
    return this.messages.flatMap((message) => message.messages.map((line) => `${line.taskId}:${line.stream}:${line.data.toString()}`));
  }
}

/** The tasks a node holds, as the worker shows them. */
class Tasks implements LogSource {
  readonly tasks: LoggedTask[] = [];
  private readonly listeners = new Set<(task: LoggedTask) => void>();
  constructor(private readonly clock: { now: number }) {}
  add(taskId: string, serviceId = 'svc-1'): TaskLog {
    const task = { taskId, serviceId, log: new TaskLog({ now: () => this.clock.now }) };
    this.tasks.push(task);
    for (const listener of this.listeners) listener(task);
    return task.log;
  }
  logsOf(selector: { serviceIds: string[]; taskIds: string[] }): LoggedTask[] {
    return this.tasks.filter((task) => selects(selector, task));
  }
  onTaskAdded(listener: (task: LoggedTask) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}

const SESSION = { nodeId: 'node-1', sessionId: 'session-1' };
const ALL: LogOptionsMessage = { stdout: true, stderr: true, follow: false, tail: -1, sinceMs: 0 };
const subscription = (id: string, options: Partial<LogOptionsMessage> = {}, selector: Partial<LogSubscriptionMessage['selector']> = {}): LogSubscriptionMessage => ({
  id,
  selector: { serviceIds: ['svc-1'], taskIds: [], ...selector },
  options: { ...ALL, ...options },
  close: false,
});
const closing = (id: string): LogSubscriptionMessage => ({ ...subscription(id), close: true });

describe('the log publisher', () => {
  let clock: { now: number };
  let tasks: Tasks;
  let timers: ManualTimers;
  let calls: RecordedCall[];
  let lines: string[];
  let publisher: LogPublisher;

  beforeEach(() => {
    clock = { now: Date.UTC(2025, 0, 1) };
    tasks = new Tasks(clock);
    timers = new ManualTimers();
    calls = [];
    lines = [];
    publisher = new LogPublisher({
      source: tasks,
      timers,
      open: (done) => {
        const call = new RecordedCall(done);
        calls.push(call);
        return call;
      },
      log: (line) => lines.push(line),
    });
  });

  it('not following: sends what the selected tasks wrote, oldest first across tasks, then close, and ends the call', () => {
    const a = tasks.add('a');
    const b = tasks.add('b');
    tasks.add('other', 'svc-9').write('stdout', 'not selected\n');
    a.write('stdout', 'a1\n');
    clock.now += 1;
    b.write('stderr', 'b1\n');
    clock.now += 1;
    a.write('stdout', 'a2\n');
    publisher.handle([subscription('s1')], SESSION);

    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.lines).toEqual(['a:STDOUT:a1\n', 'b:STDERR:b1\n', 'a:STDOUT:a2\n']);
    expect(call!.messages.at(-1)).toEqual({ ...SESSION, subscriptionId: 's1', messages: [], close: true });
    expect(call!.messages[0]).toMatchObject({ ...SESSION, subscriptionId: 's1', close: false });
    expect(call!.messages[0]!.messages[1]).toEqual({
      taskId: 'b',
      serviceId: 'svc-1',
      nodeId: 'node-1',
      at: new Date(Date.UTC(2025, 0, 1) + 1).toISOString(),
      stream: 'STDERR',
      data: Buffer.from('b1\n'),
    });
    expect(call!.ended).toBe(true);
    expect(publisher.size).toBe(0);
  });

  it("sends a line's time as its writer gave it, whole (an engine's nanoseconds), and else its ms in ISO 8601", () => {
    const a = tasks.add('a');
    a.write('stdout', 'from the engine\n', { at: Date.parse('2024-12-31T23:59:59.999Z'), time: '2024-12-31T23:59:59.999876543Z' });
    clock.now += 1;
    a.write('stdout', 'from the clock\n');
    publisher.handle([subscription('s1')], SESSION);
    expect(calls[0]!.messages[0]!.messages.map((message) => [message.at, message.data.toString()])).toEqual([
      ['2024-12-31T23:59:59.999876543Z', 'from the engine\n'],
      [new Date(Date.UTC(2025, 0, 1) + 1).toISOString(), 'from the clock\n'],
    ]);
  });

  it(`sends at most ${MESSAGE_LINES} lines and ${MESSAGE_BYTES / 1024} KiB a message`, () => {
    const a = tasks.add('a');
    for (let i = 0; i < 250; i += 1) a.write('stdout', `${i}\n`);
    const b = tasks.add('b', 'svc-2');
    for (let i = 0; i < 10; i += 1) b.write('stdout', `${'x'.repeat(16 * 1024)}\n`);
    publisher.handle([subscription('many'), subscription('big', {}, { serviceIds: ['svc-2'] })], SESSION);
    const [many, big] = calls;
    expect(many!.messages.map((message) => message.messages.length)).toEqual([100, 100, 50, 0]);
    expect(many!.lines).toHaveLength(250);
    const sizes = big!.messages.map((message) => message.messages.reduce((bytes, line) => bytes + line.data.length, 0));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MESSAGE_BYTES);
    expect(big!.lines).toHaveLength(10);
  });

  it("takes the last `tail` lines of each task, the streams asked for (neither named: both), and lines since a time", () => {
    const a = tasks.add('a');
    const b = tasks.add('b');
    a.write('stdout', 'a1\na2\n');
    a.write('stderr', 'a-err\n');
    clock.now += 10;
    b.write('stdout', 'b1\nb2\n');
    publisher.handle([subscription('tail', { tail: 1 }), subscription('stdout', { stderr: false }), subscription('neither', { stdout: false, stderr: false, tail: 2 })], SESSION);
    publisher.handle([subscription('since', { sinceMs: clock.now }), subscription('none', { tail: 0 })], SESSION);
    const [tail, stdout, neither, since, none] = calls;
    expect(tail!.lines).toEqual(['a:STDERR:a-err\n', 'b:STDOUT:b2\n']);
    expect(stdout!.lines).toEqual(['a:STDOUT:a1\n', 'a:STDOUT:a2\n', 'b:STDOUT:b1\n', 'b:STDOUT:b2\n']);
    expect(neither!.lines).toEqual(['a:STDOUT:a2\n', 'a:STDERR:a-err\n', 'b:STDOUT:b1\n', 'b:STDOUT:b2\n']);
    expect(since!.lines).toEqual(['b:STDOUT:b1\n', 'b:STDOUT:b2\n']);
    expect(none!.lines).toEqual([]);
    expect([tail, stdout, neither, since, none].every((call) => call!.ended && call!.messages.at(-1)!.close)).toBe(true);
  });

  it('following: sends later lines in batches, takes in a task started later, ignores the same subscription again, and ends when the dispatcher closes it', () => {
    const a = tasks.add('a');
    a.write('stdout', 'before\n');
    publisher.handle([subscription('f', { follow: true })], SESSION);
    publisher.handle([subscription('f', { follow: true })], SESSION);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.lines).toEqual(['a:STDOUT:before\n']);
    expect(call!.ended).toBe(false);

    a.write('stdout', 'one\n');
    a.write('stderr', 'two\n');
    // Gathered for a moment, then out together.
    expect(call!.messages).toHaveLength(1);
    timers.advance(FOLLOW_FLUSH_MS);
    expect(call!.messages).toHaveLength(2);
    expect(call!.messages[1]!.messages.map((line) => line.data.toString())).toEqual(['one\n', 'two\n']);

    const later = tasks.add('later');
    tasks.add('elsewhere', 'svc-9').write('stdout', 'not selected\n');
    later.write('stdout', 'hello from later\n');
    timers.advance(FOLLOW_FLUSH_MS);
    expect(call!.lines.slice(3)).toEqual(['later:STDOUT:hello from later\n']);

    a.write('stdout', 'pending when closed\n');
    publisher.handle([closing('f')], SESSION);
    expect(call!.messages.at(-1)).toEqual({ ...SESSION, subscriptionId: 'f', messages: [], close: true });
    expect(call!.ended).toBe(true);
    const sent = call!.messages.length;
    a.write('stdout', 'after\n');
    timers.advance(FOLLOW_FLUSH_MS);
    expect(call!.messages).toHaveLength(sent);
    expect(call!.lines).not.toContain('a:STDOUT:pending when closed\n');
    expect(publisher.size).toBe(0);
  });

  it('sends a full message of followed lines at once, without waiting', () => {
    const a = tasks.add('a');
    publisher.handle([subscription('f', { follow: true })], SESSION);
    for (let i = 0; i < MESSAGE_LINES; i += 1) a.write('stdout', `${i}\n`);
    expect(calls[0]!.messages.map((message) => message.messages.length)).toEqual([MESSAGE_LINES]);
  });

  it('cancels every call when the session ends, and sends nothing more', () => {
    const a = tasks.add('a');
    publisher.handle([subscription('f1', { follow: true }), subscription('f2', { follow: true })], SESSION);
    a.write('stdout', 'pending\n');
    publisher.cancelAll();
    expect(calls.map((call) => call.cancelled)).toEqual([true, true]);
    a.write('stdout', 'after\n');
    timers.advance(FOLLOW_FLUSH_MS);
    tasks.add('later').write('stdout', 'later\n');
    timers.advance(FOLLOW_FLUSH_MS);
    expect(calls.flatMap((call) => call.lines)).toEqual([]);
    expect(publisher.size).toBe(0);
    // A close for a subscription no longer published is nothing to do.
    publisher.handle([closing('f1')], SESSION);
    expect(calls.some((call) => call.ended)).toBe(false);
  });

  it('drops a subscription whose call fails, saying so, and publishes it anew if it comes again', () => {
    const a = tasks.add('a');
    publisher.handle([subscription('f', { follow: true })], SESSION);
    calls[0]!.done(Object.assign(new Error('5 NOT_FOUND: no such session'), { code: 5 }));
    expect(lines).toEqual(['log subscription f: publishing failed (5 NOT_FOUND: no such session); it gets no more lines from this node']);
    expect(publisher.size).toBe(0);
    a.write('stdout', 'after\n');
    timers.advance(FOLLOW_FLUSH_MS);
    expect(calls[0]!.messages).toEqual([]);
    publisher.handle([subscription('f', { follow: true })], SESSION);
    expect(calls).toHaveLength(2);
    // A call that ended as it should (closed, then answered) is not a failure.
    publisher.handle([subscription('once')], SESSION);
    calls[2]!.done(null);
    expect(lines).toHaveLength(1);
  });
});
