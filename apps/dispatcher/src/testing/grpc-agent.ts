/**
 * A gRPC agent, by hand, for the dispatcher's specs on a real broker: the calls of the
 * agent protocol without the agent app, so each spec says exactly what the agent sends.
 */
import type { ClientReadableStream, ClientWritableStream, Metadata, ServiceError } from '@grpc/grpc-js';
import type { EventType, EventOf } from '@shoal/contracts';
import type { EventLog } from '@shoal/eventlog';
import type { DispatcherClient } from '@shoal/protocol';
import type { AssignmentsMessage, HeartbeatRequest, HeartbeatsResponse, NodeDescriptionMessage, SessionMessage, TaskStatusMessage } from '@shoal/protocol';
import { eventsOn, eventually } from '@shoal/testing';
import type { KafkaTestTopic } from '@shoal/testing';
import { DispatcherServer } from '../dispatcher-server';

export type Client = InstanceType<typeof DispatcherClient>;
type Call = (...args: unknown[]) => unknown;

export const description: NodeDescriptionMessage = {
  hostname: 'worker-1',
  platform: { os: 'linux', architecture: 'x86_64' },
  nanoCpus: 2e9,
  memoryBytes: 2 ** 30,
  generic: [{ kind: 'gpu', discrete: 1, named: '' }],
  engineVersion: '28.2.2',
  engineLabels: { zone: 'a' },
  plugins: [{ type: 'Volume', name: 'local' }],
};

/** How long the dispatcher, the log and a stream get to do each thing. */
export const WITHIN_MS = 20_000;

export const findEvent = <K extends EventType>(log: EventLog, type: K, match: (event: EventOf<K>) => boolean = () => true): Promise<EventOf<K>> =>
  eventually(`${type} on the log`, async () =>
    (await eventsOn(log)).find((event): event is EventOf<K> => event.type === type && match(event as EventOf<K>)),
    WITHIN_MS,
  );

export const unary = <Res>(client: Client, method: string, request: object): Promise<Res> =>
  new Promise((resolve, reject) =>
    ((client as unknown as Record<string, Call>)[method] as Call).call(client, request, (error: ServiceError | null, response: Res) =>
      error ? reject(error) : resolve(response),
    ),
  );

/** A server stream's messages as they come, and how it ended. */
export class Received<T> {
  readonly messages: T[] = [];
  ended?: ServiceError;
  trailers?: Metadata;
  constructor(readonly stream: ClientReadableStream<T>) {
    stream.on('data', (message: T) => this.messages.push(message));
    stream.on('error', (error: ServiceError) => (this.ended = error));
    stream.on('status', (s: { metadata: Metadata }) => (this.trailers = s.metadata));
  }
  next(index: number): Promise<T> {
    return eventually(`message ${index}`, () => this.messages[index], WITHIN_MS);
  }
  end(): Promise<ServiceError> {
    return eventually('the stream to end', () => this.ended, WITHIN_MS);
  }
}

export const openSession = (client: Client, joinToken: string, nodeId = ''): Received<SessionMessage> =>
  new Received((client as unknown as Record<string, Call>).session!.call(client, { joinToken, nodeId, description }) as ClientReadableStream<SessionMessage>);

export const openAssignments = (client: Client, nodeId: string, sessionId: string): Received<AssignmentsMessage> =>
  new Received((client as unknown as Record<string, Call>).assignments!.call(client, { nodeId, sessionId }) as ClientReadableStream<AssignmentsMessage>);

export const statusOf = (taskId: string, state: number): TaskStatusMessage => ({
  taskId,
  state,
  at: new Date().toISOString(),
  message: 'started',
  err: '',
  hasExitCode: false,
  exitCode: 0,
});

/** A Heartbeats stream, as an agent process keeps one on each connection, and how it was answered. */
export class Heartbeats {
  private readonly stream: ClientWritableStream<HeartbeatRequest>;
  private answered?: { error: ServiceError | null; response?: HeartbeatsResponse };
  constructor(client: Client) {
    this.stream = (client as unknown as Record<string, Call>).heartbeats!.call(client, (error: ServiceError | null, response?: HeartbeatsResponse) => {
      this.answered = { error, response };
    }) as ClientWritableStream<HeartbeatRequest>;
    // How the stream ended is the callback's to tell; a write racing that must not throw.
    this.stream.on('error', () => undefined);
  }
  beat(nodeId: string, sessionId: string): void {
    this.stream.write({ nodeId, sessionId });
  }
  /** The answer, once the dispatcher gave it. */
  answer(): Promise<{ error: ServiceError | null; response?: HeartbeatsResponse }> {
    return eventually('the Heartbeats stream answered', () => this.answered, WITHIN_MS);
  }
  /** Ends the stream, as an agent that stops: the answer. */
  end(): Promise<{ error: ServiceError | null; response?: HeartbeatsResponse }> {
    this.stream.end();
    return this.answer();
  }
}

/** The value of one sample of the dispatcher's /metrics; it fails when there is no such sample. */
export const sampleOf = async (server: DispatcherServer, name: string, labels: Record<string, string>): Promise<number> => {
  const value = await server.metrics.sample(name, labels);
  if (value === undefined) throw new Error(`no sample ${name}${JSON.stringify(labels)} on /metrics`);
  return value;
};

/** Heartbeats for a session on a stream of its own until the returned function is called. */
export const keepAlive = (client: Client, nodeId: string, sessionId: string): (() => Promise<void>) => {
  const heartbeats = new Heartbeats(client);
  let beating = true;
  const loop = (async () => {
    while (beating) {
      heartbeats.beat(nodeId, sessionId);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return async () => {
    if (!beating) return;
    beating = false;
    await loop;
    await heartbeats.end();
  };
};


/**
 * Another dispatcher of `cluster`, on a log of its own on the same topic: it stands by
 * while the suite's is active. `closing` stops it (a standby's runner waits for the lease
 * until its log closes, so its log closes before the stop is awaited).
 */
export const startStandby = async (
  topic: KafkaTestTopic,
  name: string,
  cluster: string,
  closing: (() => Promise<void> | void)[],
): Promise<{ standby: DispatcherServer; log: EventLog; port: number }> => {
  const log = await topic.open(name);
  const standby = new DispatcherServer(log, { cluster });
  closing.push(async () => {
    const stopping = standby.stop();
    await log.close();
    await stopping;
  });
  const { port } = await standby.start();
  return { standby, log, port };
};
