/**
 * The log broker's flow control, with the calls faked: a caller that cannot take more
 * holds back the node's stream (instead of the dispatcher buffering its output), and the
 * node reads on once the caller drains or the subscription ends.
 */
import { EventEmitter } from 'node:events';
import type { ServerReadableStream, ServerWritableStream } from '@grpc/grpc-js';
import { emptyState } from '@shoal/domain';
import type { ClusterState, SessionTable } from '@shoal/domain';
import type { LogSubscriptionMessage, PublishLogsMessage, SubscribeLogsMessage, SubscribeLogsRequest } from '@shoal/protocol';
import { LogBroker } from './log-broker';
import type { LogSessionLink } from './log-broker';

/** The caller's stream: `write` answers as `accepting` says. */
class FakeSubscriber extends EventEmitter {
  readonly written: SubscribeLogsMessage[] = [];
  accepting = true;
  cancelled = false;
  writableEnded = false;
  constructor(readonly request: SubscribeLogsRequest) {
    super();
  }
  write(message: SubscribeLogsMessage): boolean {
    this.written.push(message);
    return this.accepting;
  }
  end(): void {
    this.writableEnded = true;
  }
}

/** A node's PublishLogs stream, as the broker reads it. */
class FakePublication extends EventEmitter {
  paused = false;
  pause(): this {
    this.paused = true;
    return this;
  }
  resume(): this {
    this.paused = false;
    return this;
  }
}

const line = (text: string) => ({ taskId: 't1', serviceId: '', nodeId: '', at: '2026-01-01T00:00:00.000Z', stream: 'STDOUT' as const, data: Buffer.from(`${text}\n`) });

describe('the log broker holding back a node for a slow caller', () => {
  const state: ClusterState = emptyState();
  state.cluster = { tokens: { manager: 'manager-token' } } as ClusterState['cluster'];
  state.tasks.set('t1', { id: 't1', serviceId: 's1', nodeId: 'n1' } as never);
  const asked: LogSubscriptionMessage[] = [];
  const link: LogSessionLink = { nodeId: 'n1', sessionId: 'session-1', ended: undefined, subscribeLogs: (subscription) => void asked.push(subscription) };
  const session = { registration: 'open', link };
  const sessions = { get: (id: string) => (id === 'n1' ? session : undefined), current: (id: string, sid: string) => (id === 'n1' && sid === 'session-1' ? session : undefined) } as unknown as SessionTable;

  const subscribe = (broker: LogBroker, follow: boolean): FakeSubscriber => {
    const caller = new FakeSubscriber({ selector: { serviceIds: ['s1'], taskIds: [] }, options: { stdout: true, stderr: true, follow, tail: -1, sinceMs: 0 }, managerToken: 'manager-token' });
    (broker.implementation().subscribeLogs as (call: ServerWritableStream<SubscribeLogsRequest, SubscribeLogsMessage>) => void)(caller as never);
    return caller;
  };
  const publish = (broker: LogBroker): FakePublication => {
    const node = new FakePublication();
    broker.publish(node as unknown as ServerReadableStream<PublishLogsMessage, object>, () => undefined);
    return node;
  };
  const send = (node: FakePublication, subscriptionId: string, text: string): void => {
    node.emit('data', { nodeId: 'n1', sessionId: 'session-1', subscriptionId, messages: [line(text)], close: false } satisfies PublishLogsMessage);
  };

  beforeEach(() => {
    asked.length = 0;
  });

  it('pauses the node while the caller cannot take more, and resumes it when the caller drains', () => {
    const broker = new LogBroker({ active: () => ({ state }), sessions, newId: () => 'sub-1', log: () => undefined });
    const caller = subscribe(broker, true);
    expect(caller.written).toEqual([{ messages: [], warnings: [] }]);
    const node = publish(broker);
    send(node, 'sub-1', 'taken');
    expect(node.paused).toBe(false);
    caller.accepting = false;
    send(node, 'sub-1', 'one too many');
    expect(node.paused).toBe(true);
    expect(caller.written.at(-1)?.messages.map((m) => [m.serviceId, m.nodeId, m.data.toString()])).toEqual([['s1', 'n1', 'one too many\n']]);
    caller.accepting = true;
    caller.emit('drain');
    expect(node.paused).toBe(false);
  });

  it('lets a held-back node read on when the caller goes away, so it hears the subscription is over', () => {
    const broker = new LogBroker({ active: () => ({ state }), sessions, newId: () => 'sub-2', log: () => undefined });
    const caller = subscribe(broker, true);
    const node = publish(broker);
    caller.accepting = false;
    send(node, 'sub-2', 'held');
    expect(node.paused).toBe(true);
    caller.cancelled = true;
    caller.emit('cancelled');
    expect(node.paused).toBe(false);
    expect(asked.map((s) => [s.id, s.close])).toEqual([
      ['sub-2', false],
      ['sub-2', true],
    ]);
    expect(broker.size).toBe(0);
  });
});
