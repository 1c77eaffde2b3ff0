/**
 * For specs: a Logs service (what the active dispatcher serves) on 127.0.0.1, any free
 * port, answering each SubscribeLogs call with the handler the spec gives; a reader of
 * Docker's multiplexed stream, to check a logs body as the docker CLI reads it; and an
 * address where nothing listens.
 */
import { createServer } from 'node:net';
import { Metadata, Server, ServerCredentials, status as GrpcStatus } from '@grpc/grpc-js';
import type { ServerWritableStream } from '@grpc/grpc-js';
import { DISPATCHER_REDIRECT_KEY, LOGS_SERVICE } from '@shoal/protocol';
import type { LogMessage, SubscribeLogsMessage, SubscribeLogsRequest } from '@shoal/protocol';

export type LogsCallHandler = (call: ServerWritableStream<SubscribeLogsRequest, SubscribeLogsMessage>) => void;

export interface FakeLogsServer {
  readonly address: string;
  /** The requests it was sent, in order. */
  readonly requests: SubscribeLogsRequest[];
  /** Calls it is serving now (ended by neither side). */
  readonly open: number;
  close(): Promise<void>;
}

/** A Logs server on loopback answering with `handler`; plain gRPC unless `credentials` are given (a TLS one). */
export const startFakeLogsServer = async (handler: LogsCallHandler, credentials: ServerCredentials = ServerCredentials.createInsecure()): Promise<FakeLogsServer> => {
  const server = new Server();
  const requests: SubscribeLogsRequest[] = [];
  let open = 0;
  server.addService(LOGS_SERVICE, {
    subscribeLogs: (call: ServerWritableStream<SubscribeLogsRequest, SubscribeLogsMessage>) => {
      requests.push(call.request);
      open += 1;
      let counted = true;
      const done = (): void => {
        if (counted) open -= 1;
        counted = false;
      };
      call.on('cancelled', done);
      call.on('finish', done);
      call.on('error', done);
      handler(call);
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    address: `127.0.0.1:${port}`,
    requests,
    get open() {
      return open;
    },
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
};

/** A handler that refuses as a standby does: FAILED_PRECONDITION naming the active dispatcher. */
export const redirectingTo =
  (active: string): LogsCallHandler =>
  (call) => {
    const trailer = new Metadata();
    trailer.set(DISPATCHER_REDIRECT_KEY, active);
    call.emit('error', { code: GrpcStatus.FAILED_PRECONDITION, details: `not the active dispatcher: the active one is at ${active}`, metadata: trailer });
  };

/** A handler that sends `messages` and ends the stream. */
export const sending =
  (...messages: Partial<SubscribeLogsMessage>[]): LogsCallHandler =>
  (call) => {
    for (const message of messages) call.write({ messages: [], warnings: [], ...message });
    call.end();
  };

/** A line of output as the dispatcher sends it. */
export const logLine = (line: string, overrides: Partial<LogMessage> = {}): LogMessage => ({
  taskId: 't1',
  serviceId: 's1',
  nodeId: 'n1',
  at: '2026-01-01T00:00:01.5Z',
  stream: 'STDOUT',
  data: Buffer.from(`${line}\n`),
  ...overrides,
});

export interface Frame {
  readonly stream: number;
  readonly payload: string;
}

/** Splits a multiplexed body into its frames, as Docker's StdCopy does; throws on a torn frame. */
export const readFrames = (body: Buffer): Frame[] => {
  const frames: Frame[] = [];
  let at = 0;
  while (at < body.length) {
    if (body.length - at < 8) throw new Error(`a torn header at byte ${at}`);
    const length = body.readUInt32BE(at + 4);
    if (body[at + 1] !== 0 || body[at + 2] !== 0 || body[at + 3] !== 0) throw new Error(`header bytes 1-3 are not zero at byte ${at}`);
    if (body.length - at - 8 < length) throw new Error(`a torn payload at byte ${at}`);
    frames.push({ stream: body[at]!, payload: body.subarray(at + 8, at + 8 + length).toString('utf8') });
    at += 8 + length;
  }
  return frames;
};

/** An address where nothing listens: a port on 127.0.0.1 just freed. */
export const freedAddress = async (): Promise<string> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
};
