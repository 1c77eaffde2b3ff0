/**
 * The heartbeats of every session on one channel, as messages on one long-lived
 * Heartbeats stream (dispatcher.proto). A message on a stream already open costs the
 * dispatcher several times less than a call of its own, so it can ask a fleet for more
 * heartbeats a second and see a failed node sooner. Nothing is answered: the dispatcher
 * tells a session of a new period, and of its end, on the session's own stream. When the
 * stream ends (the dispatcher went away, or is not the active one), the next heartbeat
 * opens a new one; the sessions themselves hear of a lost dispatcher on their Session
 * streams.
 */
import type { ClientWritableStream, ServiceError } from '@grpc/grpc-js';
import type { HeartbeatRequest, HeartbeatsResponse } from '@shoal/protocol';

/** Opens a Heartbeats stream, whose end is answered by `callback`. */
export type OpenHeartbeats = (callback: (error: ServiceError | null, response?: HeartbeatsResponse) => void) => ClientWritableStream<HeartbeatRequest>;

export class HeartbeatStream {
  private stream: ClientWritableStream<HeartbeatRequest> | undefined;

  constructor(private readonly open: OpenHeartbeats) {}

  /** Sends one session's heartbeat. */
  beat(request: HeartbeatRequest): void {
    (this.stream ?? this.start()).write(request);
  }

  /** Ends the stream; the next heartbeat opens another. */
  close(): void {
    const stream = this.stream;
    this.stream = undefined;
    stream?.end();
  }

  private start(): ClientWritableStream<HeartbeatRequest> {
    const stream = this.open(() => {
      if (this.stream === stream) this.stream = undefined;
    });
    // Its end is the callback's to hear; a write racing it must not throw.
    stream.on('error', () => undefined);
    this.stream = stream;
    return stream;
  }
}
