/**
 * One SubscribeLogs call to a dispatcher, as the API serves it over HTTP. An HTTP answer
 * cannot change its status once it has begun, so the call first has to *start*: it has
 * started when the dispatcher sends its first message (which says it took the
 * subscription) or ends the stream cleanly. Until then a failure (refused, not the active
 * dispatcher, nobody listening, no answer in time) rejects `started`, and the API answers
 * it with an HTTP error. After that, `attach` hands the messages to a sink one at a time: the
 * call reads no more from the dispatcher until the sink has taken the last one, so a slow
 * client slows the stream down instead of filling the API's memory.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { ClientReadableStream, ServiceError, StatusObject } from '@grpc/grpc-js';
import type { SubscribeLogsMessage } from '@shoal/protocol';

export interface LogsSink {
  /** Resolves when the sink can take more. */
  message(message: SubscribeLogsMessage): Promise<void>;
  /** The stream is over; `error` when it failed. Not called once the call is cancelled. */
  end(error?: ServiceError): void;
}

export class LogsCall {
  /** Resolves once the call has started; rejects with the reason it failed before that. */
  readonly started: Promise<void>;
  private resolveStart!: () => void;
  private rejectStart!: (error: unknown) => void;
  private isStarted = false;
  private sink?: LogsSink;
  private readonly queue: SubscribeLogsMessage[] = [];
  private delivering = false;
  private ended = false;
  private finished = false;
  private cancelled = false;
  private failure?: ServiceError;

  /** `unanswered` rejects when the dispatcher cannot be reached, or does not take the call in time. */
  constructor(
    private readonly call: ClientReadableStream<SubscribeLogsMessage>,
    unanswered: Promise<never>,
  ) {
    this.started = new Promise<void>((resolve, reject) => {
      this.resolveStart = resolve;
      this.rejectStart = reject;
    });
    // A call cancelled or failed before anyone waits on it is not an unhandled rejection.
    this.started.catch(() => undefined);
    call.on('data', (message: SubscribeLogsMessage) => {
      call.pause();
      this.queue.push(message);
      this.start();
      void this.pump();
    });
    call.on('status', (status: StatusObject) => {
      if (status.code === GrpcStatus.OK) this.start();
    });
    call.on('error', (error: ServiceError) => {
      if (this.cancelled) return;
      if (!this.isStarted) return this.refuse(error);
      this.failure = error;
    });
    call.on('end', () => {
      this.ended = true;
      void this.pump();
    });
    unanswered.catch((error: unknown) => {
      if (this.isStarted) return;
      this.refuse(error);
      this.cancel();
    });
  }

  /** Delivers the stream to `sink`, from its first message. */
  attach(sink: LogsSink): void {
    this.sink = sink;
    void this.pump();
  }

  /** Ends the call: the dispatcher stops sending, and the sink is told nothing more. */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.refuse(new Error('the logs call was cancelled'));
    this.call.cancel();
  }

  private start(): void {
    if (this.isStarted) return;
    this.isStarted = true;
    this.resolveStart();
  }

  private refuse(error: unknown): void {
    if (this.isStarted) return;
    this.isStarted = true;
    this.rejectStart(error);
  }

  private async pump(): Promise<void> {
    const sink = this.sink;
    if (!sink || this.delivering || this.finished) return;
    this.delivering = true;
    try {
      while (this.queue.length > 0 && !this.cancelled) await sink.message(this.queue.shift()!);
    } catch {
      this.cancel();
    } finally {
      this.delivering = false;
    }
    if (this.cancelled) return;
    if (this.ended) {
      this.finished = true;
      sink.end(this.failure);
      return;
    }
    this.call.resume();
  }
}
