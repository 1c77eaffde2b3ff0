import { Readable } from 'node:stream';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import type { SubscribeLogsMessage } from '@shoal/protocol';
import { logLine } from '../../testing/fake-logs-server';
import { LogsCall } from './logs-call';

/** A server stream as grpc-js's client gives it: a Readable of messages that ends with a status. */
class FakeCall extends Readable {
  cancelled = false;
  constructor() {
    super({ objectMode: true, read: () => undefined });
  }
  send(line: string): void {
    this.push({ messages: [logLine(line)], warnings: [] } satisfies SubscribeLogsMessage);
  }
  /** As grpc-js ends a call: the end of the messages, then the error (if any), then the status. */
  finish(code = GrpcStatus.OK, details = ''): void {
    this.push(null);
    if (code !== GrpcStatus.OK) this.emit('error', Object.assign(new Error(`${code} ${details}`), { code, details }) as ServiceError);
    this.emit('status', { code, details });
  }
  cancel(): void {
    this.cancelled = true;
    this.finish(GrpcStatus.CANCELLED, 'Cancelled on client');
  }
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const never = new Promise<never>(() => undefined);
const open = (fake: FakeCall, unanswered: Promise<never> = never): LogsCall => new LogsCall(fake as unknown as ClientReadableStream<SubscribeLogsMessage>, unanswered);
const lines = (messages: SubscribeLogsMessage[]): string[] => messages.flatMap((message) => message.messages.map((line) => line.data.toString().trim()));

describe('one logs call', () => {
  it('starts with the first message, and delivers it', async () => {
    const fake = new FakeCall();
    const call = open(fake);
    fake.send('first');
    await call.started;
    const seen: SubscribeLogsMessage[] = [];
    call.attach({ message: async (message) => void seen.push(message), end: () => undefined });
    await tick();
    expect(lines(seen)).toEqual(['first']);
  });

  it('starts when the dispatcher ended it cleanly with nothing sent', async () => {
    const empty = new FakeCall();
    const call = open(empty);
    empty.finish();
    await call.started;
    const end = jest.fn();
    call.attach({ message: async () => undefined, end });
    await tick();
    expect(end).toHaveBeenCalledWith(undefined);
  });

  it('fails to start with a refusal that comes first', async () => {
    const fake = new FakeCall();
    const call = open(fake);
    fake.finish(GrpcStatus.FAILED_PRECONDITION, 'not the active dispatcher');
    await expect(call.started).rejects.toMatchObject({ code: GrpcStatus.FAILED_PRECONDITION });
  });

  it('fails to start, and cancels, when the dispatcher cannot be reached', async () => {
    const fake = new FakeCall();
    const call = open(fake, Promise.reject(new Error('no connection')));
    await expect(call.started).rejects.toThrow('no connection');
    expect(fake.cancelled).toBe(true);
  });

  it('takes the next message from the dispatcher only once the sink has taken the last', async () => {
    const fake = new FakeCall();
    const call = open(fake);
    for (const line of ['a', 'b', 'c']) fake.send(line);
    await call.started;
    let release!: () => void;
    const seen: SubscribeLogsMessage[] = [];
    call.attach({
      message: (message) => {
        seen.push(message);
        return seen.length === 1 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
      },
      end: () => undefined,
    });
    await tick();
    expect(lines(seen)).toEqual(['a']);
    expect(fake.readableLength).toBe(2);
    release();
    await tick();
    await tick();
    expect(lines(seen)).toEqual(['a', 'b', 'c']);
  });

  it('delivers what came before a failure, then the failure', async () => {
    const fake = new FakeCall();
    const call = open(fake);
    fake.send('before');
    await call.started;
    fake.finish(GrpcStatus.UNAVAILABLE, 'connection reset');
    const ended = new Promise<{ seen: string[]; error?: ServiceError }>((resolve) => {
      const seen: string[] = [];
      call.attach({ message: async (message) => void seen.push(...lines([message])), end: (error) => resolve({ seen, ...(error ? { error } : {}) }) });
    });
    expect(await ended).toMatchObject({ seen: ['before'], error: { code: GrpcStatus.UNAVAILABLE, details: 'connection reset' } });
  });

  it('tells the sink nothing once cancelled', async () => {
    const fake = new FakeCall();
    const call = open(fake);
    fake.send('taken');
    await call.started;
    const end = jest.fn();
    call.attach({ message: async () => undefined, end });
    call.cancel();
    await tick();
    expect(fake.cancelled).toBe(true);
    expect(end).not.toHaveBeenCalled();
  });
});
