/**
 * The thread a lease's group member lives on (lease-thread.ts starts it): a Kafka client of
 * its own and one KafkaLease, whose heartbeats go out on this thread's event loop, so a
 * long tick or a large collection on the process's main thread does not cost the lease.
 * What the lease does is posted to the main thread; the main thread posts `alive` every
 * so often, and a main thread silent for `stallLimitMs` (stuck, not busy) gives the lease
 * up, so that a standby can act.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Kafka } from 'kafkajs';
import type { KafkaConfig } from 'kafkajs';
import { setEventLogSink } from '../log-sink';
import { quietLogCreator } from './kafka-logger';
import { KafkaLease } from './kafka-lease';
import type { KafkaLeaseOptions } from './kafka-lease';

/** What the main thread gives the lease's thread: serialisable (no functions). */
export interface LeaseWorkerData {
  readonly config: Omit<KafkaConfig, 'logCreator' | 'socketFactory'>;
  readonly options: KafkaLeaseOptions;
  readonly stallLimitMs: number;
}

export type ToLeaseWorker = { readonly kind: 'alive' } | { readonly kind: 'release' };

export type FromLeaseWorker =
  | { readonly kind: 'granted'; readonly generation: number }
  | { readonly kind: 'members'; readonly members: readonly string[] }
  | { readonly kind: 'lost'; readonly reason: string }
  | { readonly kind: 'log'; readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly message: string }
  /** The member has left the group: the thread may end. */
  | { readonly kind: 'done' };

const port = parentPort;
if (port) {
  const { config, options, stallLimitMs } = workerData as LeaseWorkerData;
  const post = (message: FromLeaseWorker): void => port.postMessage(message);
  setEventLogSink((level, message) => post({ kind: 'log', level, message }));
  const lease = KafkaLease.start(new Kafka({ ...config, logCreator: quietLogCreator }), options);
  lease.granted.then(
    () => post({ kind: 'granted', generation: lease.generation }),
    () => undefined, // `lost` says why
  );
  lease.onMembers((members) => post({ kind: 'members', members }));
  let lastAlive = Date.now();
  const watchdog = setInterval(() => {
    const silent = Date.now() - lastAlive;
    if (silent > stallLimitMs) void lease.release(`the process's main thread did not answer for ${Math.round(silent / 1000)} s: the lease is given up for a standby`);
  }, 1_000);
  void lease.lost.then(async (reason) => {
    clearInterval(watchdog);
    post({ kind: 'lost', reason });
    await lease.release();
    post({ kind: 'done' });
  });
  port.on('message', (message: ToLeaseWorker) => {
    if (message.kind === 'alive') lastAlive = Date.now();
    else void lease.release();
  });
}
