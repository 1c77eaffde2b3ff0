/**
 * A lease on a partition through a Kafka consumer group: the member the group assigns
 * the partition to holds it (see lease-assigner.ts). The member consumes nothing (its
 * topic is paused); it only keeps its place in the group by heartbeating.
 *
 * Granted: at the first successful heartbeat after a join that assigned us the partition;
 * that heartbeat carries the group generation (kafkajs 2.2.4 leaves it out of GROUP_JOIN).
 * Lost: when a rebalance gives the partition to another member, when our session expired
 * (we come back with a new member id), or when the consumer crashes, stops or is released.
 *
 * Members: every member names its instance in its join metadata. Any member joining or
 * leaving makes the whole group join again, so after each join this member asks the
 * coordinator who is in the group (DescribeGroups).
 */
import type { Consumer, Kafka } from 'kafkajs';
import type { OwnershipLease } from '../port';
import { claimOf, leaseAssigner } from './lease-assigner';
import type { LeaseClaim } from './lease-assigner';
import { groupTiming } from './group-timing';
import type { GroupTiming } from './group-timing';

export interface KafkaLeaseOptions {
  readonly groupId: string;
  readonly topic: string;
  readonly partition: number;
  readonly component: string;
  readonly instance: string;
  readonly timeoutMs?: number;
  /** How long the holder may go unheard before the group gives the partition to a standby (group-timing.ts). */
  readonly leaseTimeoutMs: number;
}

type Phase = 'waiting' | 'offered' | 'held' | 'ended';

export class KafkaLease implements OwnershipLease {
  readonly component: string;
  readonly instance: string;
  readonly partition: number;
  readonly lost: Promise<string>;
  /** Resolves once the lease is held; rejects if it ends (timeout, release, failure) before. */
  readonly granted: Promise<KafkaLease>;
  /** The timing the lease's group member joins with: its session timeout is the lease timeout. */
  readonly timing: GroupTiming;
  private phase: Phase = 'waiting';
  private grantedAt = -1;
  private confirmedAt = -1;
  private memberId?: string;
  private timer?: NodeJS.Timeout;
  private starting: Promise<void> = Promise.resolve();
  private readonly consumer: Consumer;
  private membersValue: readonly string[];
  private readonly watchers = new Set<(members: readonly string[]) => void>();
  /** Asks of the coordinator made so far: only the latest one's answer counts. */
  private asked = 0;
  private markLost!: (reason: string) => void;
  private grant!: (lease: KafkaLease) => void;
  private refuse!: (error: Error) => void;

  private constructor(
    kafka: Kafka,
    private readonly options: KafkaLeaseOptions,
  ) {
    this.component = options.component;
    this.instance = options.instance;
    this.partition = options.partition;
    this.membersValue = [options.instance];
    this.lost = new Promise((resolve) => (this.markLost = resolve));
    this.granted = new Promise((resolve, reject) => {
      this.grant = resolve;
      this.refuse = reject;
    });
    // Nobody need handle a refusal of a lease that was never awaited.
    this.granted.catch(() => undefined);
    this.timing = groupTiming(options.leaseTimeoutMs);
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      ...this.timing,
      allowAutoTopicCreation: false,
      partitionAssigners: [leaseAssigner(() => this.claim())],
      // A crashed member is a lost lease; the runtime decides whether to acquire again.
      retry: { retries: 5, restartOnFailure: async () => false },
    });
  }

  /** Joins the group; the lease's `granted` settles when it is held or cannot be. */
  static start(kafka: Kafka, options: KafkaLeaseOptions): KafkaLease {
    const lease = new KafkaLease(kafka, options);
    lease.join();
    return lease;
  }

  /** The group generation in which the lease was granted (-1 until then). */
  get generation(): number {
    return this.grantedAt;
  }

  isHeld(): boolean {
    return this.phase === 'held';
  }

  /** Ends the lease (`lost` says `reason`) and leaves the group: a standby gets the partition at once. */
  async release(reason = 'released'): Promise<void> {
    this.end(reason);
    await this.leave();
  }

  members(): readonly string[] {
    return this.membersValue;
  }

  onMembers(listener: (members: readonly string[]) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  private claim(): LeaseClaim {
    const holding = this.phase === 'held' || this.phase === 'offered';
    const wanted = { topic: this.options.topic, want: this.partition, instance: this.instance };
    return holding ? { ...wanted, heldSince: Math.max(0, this.confirmedAt) } : wanted;
  }

  /** Who is in the group now, by the instances they named (a member that named none is left out). */
  private async refreshMembers(): Promise<void> {
    const ask = ++this.asked;
    let found: string[];
    try {
      const group = await this.consumer.describeGroup();
      found = group.members.map((member) => claimOf(member.memberMetadata)?.instance).filter((instance): instance is string => instance !== undefined);
    } catch {
      return; // the next join asks again
    }
    if (ask !== this.asked || this.phase === 'ended') return;
    const members = [...new Set([this.instance, ...found])].sort();
    if (members.join('\n') === this.membersValue.join('\n')) return;
    this.membersValue = members;
    for (const listener of [...this.watchers]) listener(members);
  }

  private join(): void {
    const { consumer, options } = this;
    if (options.timeoutMs !== undefined) {
      this.timer = setTimeout(
        () => this.end(`${options.instance} was not granted ${options.component} within ${options.timeoutMs} ms (${options.topic}[${options.partition}])`),
        options.timeoutMs,
      );
    }
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const mine = payload.memberAssignment[options.topic]?.includes(options.partition) ?? false;
      const rejoined = this.memberId !== undefined && payload.memberId !== this.memberId;
      this.memberId = payload.memberId;
      if (this.phase === 'held' && rejoined) this.end('the group session expired: the member rejoined under a new id');
      else if (this.phase === 'held' && !mine) this.end('the partition was assigned to another member');
      else if (this.phase === 'waiting' && mine) this.phase = 'offered';
      else if (this.phase === 'offered' && !mine) this.phase = 'waiting';
      void this.refreshMembers();
    });
    consumer.on(consumer.events.HEARTBEAT, ({ payload }) => {
      if (payload.memberId !== this.memberId) return;
      this.confirmedAt = payload.groupGenerationId;
      if (this.phase !== 'offered') return;
      this.phase = 'held';
      this.grantedAt = payload.groupGenerationId;
      if (this.timer) clearTimeout(this.timer);
      this.grant(this);
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => this.end(`the group member crashed: ${this.explain(payload.error)}`));
    consumer.on(consumer.events.STOP, () => this.end('the group member stopped'));
    consumer.on(consumer.events.DISCONNECT, () => this.end('the group member disconnected'));
    this.starting = (async () => {
      await consumer.connect();
      await consumer.subscribe({ topics: [options.topic], fromBeginning: false });
      await consumer.run({ autoCommit: false, eachBatch: async () => undefined });
      consumer.pause([{ topic: options.topic }]);
    })().catch((error: unknown) => this.end(`the group member failed: ${this.explain(error)}`));
  }

  /** An error's message; for a session timeout the brokers refuse, what to change on either side. */
  private explain(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    if ((error as { type?: unknown } | undefined)?.type !== 'INVALID_SESSION_TIMEOUT') return message;
    const asked = this.timing.sessionTimeout;
    return `${message}: the lease timeout is ${asked} ms (SHOAL_LEASE_TIMEOUT_MS); set group.min.session.timeout.ms to at most ${asked} on every broker, or raise SHOAL_LEASE_TIMEOUT_MS`;
  }

  /** Leaves the group (a standby gets the partition at once); waits for a join under way to finish first. */
  private async leave(): Promise<void> {
    await this.starting;
    await this.consumer.disconnect().catch(() => undefined);
  }

  private end(reason: string): void {
    if (this.phase === 'ended') return;
    const wasHeld = this.phase === 'held';
    this.phase = 'ended';
    if (this.timer) clearTimeout(this.timer);
    this.markLost(reason);
    if (!wasHeld) this.refuse(new Error(reason));
    if (reason !== 'released') void this.leave();
  }
}
