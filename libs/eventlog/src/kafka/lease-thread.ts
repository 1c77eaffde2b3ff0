/**
 * A Kafka lease whose group member runs on a thread of its own (lease-worker.ts). The lease
 * timeout is a group session: the holder must heartbeat within it. On the process's main
 * thread a heartbeat waits for whatever runs there (a component's tick over 100,000 tasks,
 * a large collection), and a busy holder would lose its lease to a standby — or, alone,
 * to itself, under a new term — again and again on a loaded machine. On its own thread
 * the member heartbeats whatever the main thread does; only a process gone (killed,
 * paused, cut off) or a main thread stuck for `stallLimitMs` lets the lease go.
 *
 * This side keeps what the thread reports: granted, the members in line, lost.
 */
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { KafkaConfig } from 'kafkajs';
import { defaultSettings } from '@shoal/config';
import type { OwnershipLease } from '../port';
import { eventLogSay } from '../log-sink';
import { groupTiming } from './group-timing';
import type { GroupTiming } from './group-timing';
import type { KafkaLeaseOptions } from './kafka-lease';
import type { FromLeaseWorker, LeaseWorkerData, ToLeaseWorker } from './lease-worker';

/** The lease timeout when none is given: the declared default of SHOAL_LEASE_TIMEOUT_MS. */
export const DEFAULT_LEASE_TIMEOUT_MS = defaultSettings().SHOAL_LEASE_TIMEOUT_MS;

/** A main thread silent this long (and at least five lease timeouts) is stuck: its lease goes to a standby. */
export const MAIN_THREAD_STALL_MS = 30_000;

const WORKER = join(__dirname, `lease-worker${extname(__filename)}`);
const REGISTER = join(__dirname, '..', '..', '..', '..', 'bin', 'register.js');

/** The thread's node options: from TypeScript sources it compiles them as this process does. */
const workerArgv = (): string[] => {
  const inherited = [...process.execArgv];
  if (extname(__filename) !== '.ts' || inherited.some((arg) => arg.endsWith('register.js'))) return inherited;
  return [...inherited, '-r', REGISTER];
};

type Phase = 'waiting' | 'held' | 'ended';

export class LeaseThread implements OwnershipLease {
  readonly component: string;
  readonly instance: string;
  readonly partition: number;
  readonly lost: Promise<string>;
  /** Resolves once the lease is held; rejects if it ends (timeout, release, failure) before. */
  readonly granted: Promise<LeaseThread>;
  /** The timing the lease's group member joins with: its session timeout is the lease timeout. */
  readonly timing: GroupTiming;
  private phase: Phase = 'waiting';
  private generationValue = -1;
  private membersValue: readonly string[];
  private readonly watchers = new Set<(members: readonly string[]) => void>();
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private readonly pulse: NodeJS.Timeout;
  private markLost!: (reason: string) => void;
  private grant!: (lease: LeaseThread) => void;
  private refuse!: (error: Error) => void;

  private constructor(config: LeaseWorkerData['config'], options: KafkaLeaseOptions, stallLimitMs: number) {
    this.component = options.component;
    this.instance = options.instance;
    this.partition = options.partition;
    this.membersValue = [options.instance];
    this.timing = groupTiming(options.leaseTimeoutMs);
    this.lost = new Promise((resolve) => (this.markLost = resolve));
    this.granted = new Promise((resolve, reject) => {
      this.grant = resolve;
      this.refuse = reject;
    });
    // Nobody need handle a refusal of a lease that was never awaited.
    this.granted.catch(() => undefined);
    const data: LeaseWorkerData = { config, options, stallLimitMs };
    this.worker = new Worker(WORKER, { workerData: data, execArgv: workerArgv() });
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (message: FromLeaseWorker) => this.receive(message));
    this.worker.on('error', (error) => this.end(`the lease's thread failed: ${error.message}`));
    this.worker.on('exit', (code) => this.end(`the lease's thread ended (code ${code})`));
    // The thread gives the lease up when the main thread stops answering (see lease-worker.ts).
    this.pulse = setInterval(() => this.send({ kind: 'alive' }), 1_000);
    this.pulse.unref();
  }

  /** Starts the thread, which joins the group; `granted` settles when the lease is held or cannot be. */
  static start(
    config: LeaseWorkerData['config'],
    options: Omit<KafkaLeaseOptions, 'leaseTimeoutMs'> & { readonly leaseTimeoutMs?: number },
    stallLimitMs?: number,
  ): LeaseThread {
    const leaseTimeoutMs = options.leaseTimeoutMs ?? DEFAULT_LEASE_TIMEOUT_MS;
    return new LeaseThread(config, { ...options, leaseTimeoutMs }, stallLimitMs ?? Math.max(MAIN_THREAD_STALL_MS, 5 * leaseTimeoutMs));
  }

  /** The group generation in which the lease was granted (-1 until then). */
  get generation(): number {
    return this.generationValue;
  }

  isHeld(): boolean {
    return this.phase === 'held';
  }

  /** Ends the lease and waits until its member has left the group (a standby gets the partition at once). */
  async release(): Promise<void> {
    this.end('released');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, 10_000)));
    // A member that cannot say goodbye in time is dropped with its thread (the session then expires).
    await Promise.race([this.exited, late.then(() => this.worker.terminate())]);
    clearTimeout(timer);
  }

  members(): readonly string[] {
    return this.membersValue;
  }

  onMembers(listener: (members: readonly string[]) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  private receive(message: FromLeaseWorker): void {
    switch (message.kind) {
      case 'granted':
        if (this.phase !== 'waiting') return;
        this.phase = 'held';
        this.generationValue = message.generation;
        this.grant(this);
        return;
      case 'members':
        if (this.phase === 'ended') return;
        this.membersValue = message.members;
        for (const listener of [...this.watchers]) listener(message.members);
        return;
      case 'lost':
        this.end(message.reason);
        return;
      case 'log':
        eventLogSay(message.level, message.message, { library: 'kafkajs' });
        return;
      case 'done':
        void this.worker.terminate();
        return;
      default: {
        const _exhaustive: never = message;
        return _exhaustive;
      }
    }
  }

  private send(message: ToLeaseWorker): void {
    try {
      this.worker.postMessage(message);
    } catch {
      // the thread is gone: its exit ends the lease
    }
  }

  /** The lease is over for this side at once; the thread leaves the group, then ends. */
  private end(reason: string): void {
    if (this.phase === 'ended') return;
    const wasHeld = this.phase === 'held';
    this.phase = 'ended';
    clearInterval(this.pulse);
    this.markLost(reason);
    if (!wasHeld) this.refuse(new Error(reason));
    this.send({ kind: 'release' });
  }
}

/** What a lease's thread needs of the log's Kafka client settings (everything but functions). */
export type LeaseKafkaConfig = Omit<KafkaConfig, 'logCreator' | 'socketFactory'>;
