/**
 * The thread the group members of a log's leases live on (lease-thread.ts's LeaseHost starts
 * it): one Kafka client, and one KafkaLease per lease the main thread starts on it, each
 * under the id the main thread gave it. Their heartbeats go out on this thread's event loop,
 * so a long tick or a large collection on the process's main thread does not cost a lease.
 * What each lease does is posted to the main thread with its id; the main thread posts
 * `alive` every so often, and a main thread silent for longer than a lease's `stallLimitMs`
 * (stuck, not busy) gives that lease up, so that a standby can act.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Kafka } from 'kafkajs';
import type { KafkaConfig } from 'kafkajs';
import { setEventLogSink } from '../log-sink';
import { quietLogCreator } from './kafka-logger';
import { KafkaLease } from './kafka-lease';
import type { KafkaLeaseOptions } from './kafka-lease';

/** What the main thread gives the thread as it starts it: serialisable (no functions). */
export interface LeaseWorkerData {
  readonly config: Omit<KafkaConfig, 'logCreator' | 'socketFactory'>;
}

export type ToLeaseWorker =
  /** Join the group for one more lease; give it up when the main thread is silent for `stallLimitMs`. */
  | { readonly kind: 'start'; readonly id: number; readonly options: KafkaLeaseOptions; readonly stallLimitMs: number }
  /** End the lease and leave its group (`done` follows). */
  | { readonly kind: 'release'; readonly id: number }
  | { readonly kind: 'alive' };

export type FromLeaseWorker =
  | { readonly kind: 'granted'; readonly id: number; readonly generation: number }
  | { readonly kind: 'members'; readonly id: number; readonly members: readonly string[] }
  | { readonly kind: 'lost'; readonly id: number; readonly reason: string }
  | { readonly kind: 'log'; readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly message: string }
  /** The lease's member has left the group. */
  | { readonly kind: 'done'; readonly id: number };

interface Running {
  readonly lease: KafkaLease;
  readonly stallLimitMs: number;
}

const port = parentPort;
if (port) {
  const { config } = workerData as LeaseWorkerData;
  const post = (message: FromLeaseWorker): void => port.postMessage(message);
  setEventLogSink((level, message) => post({ kind: 'log', level, message }));
  const kafka = new Kafka({ ...config, logCreator: quietLogCreator });
  /** The leases not lost yet, by id. */
  const running = new Map<number, Running>();
  let lastAlive = Date.now();

  const start = (id: number, options: KafkaLeaseOptions, stallLimitMs: number): void => {
    const lease = KafkaLease.start(kafka, options);
    running.set(id, { lease, stallLimitMs });
    lease.granted.then(
      () => post({ kind: 'granted', id, generation: lease.generation }),
      () => undefined, // `lost` says why
    );
    lease.onMembers((members) => post({ kind: 'members', id, members }));
    void lease.lost.then(async (reason) => {
      running.delete(id);
      post({ kind: 'lost', id, reason });
      await lease.release();
      post({ kind: 'done', id });
    });
  };

  setInterval(() => {
    const silent = Date.now() - lastAlive;
    for (const { lease, stallLimitMs } of running.values()) {
      if (silent > stallLimitMs) void lease.release(`the process's main thread did not answer for ${Math.round(silent / 1000)} s: the lease is given up for a standby`);
    }
  }, 1_000);

  port.on('message', (message: ToLeaseWorker) => {
    // Any word from the main thread says it answers.
    lastAlive = Date.now();
    switch (message.kind) {
      case 'alive':
        return;
      case 'start':
        start(message.id, message.options, message.stallLimitMs);
        return;
      case 'release':
        // A lease already lost is leaving on its own: its `done` follows.
        void running.get(message.id)?.lease.release();
        return;
      default: {
        const _exhaustive: never = message;
        return _exhaustive;
      }
    }
  });
}
