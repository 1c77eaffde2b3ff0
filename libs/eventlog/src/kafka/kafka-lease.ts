/**
 * A lease on a partition through a Kafka consumer group: the member the group assigns
 * the partition to holds it. The member does not consume (its topic is paused); it only
 * keeps its place in the group. The lease is lost when a rebalance moves the partition
 * away, the session expires, or the consumer stops.
 */
import type { Consumer, Kafka } from 'kafkajs';
import type { OwnershipLease } from '../port';
import { stickyAssigner } from './sticky-assigner';
import { GROUP_TIMING } from './group-timing';

interface LeaseOptions {
  readonly groupId: string;
  readonly topic: string;
  readonly partition: number;
  readonly component: string;
  readonly instance: string;
  readonly timeoutMs?: number;
}

export class KafkaLease implements OwnershipLease {
  readonly component: string;
  readonly instance: string;
  readonly partition: number;
  readonly lost: Promise<string>;
  private generationValue = -1;
  private held = false;
  private ended = false;
  private markLost!: (reason: string) => void;

  private constructor(
    private readonly consumer: Consumer,
    options: LeaseOptions,
  ) {
    this.component = options.component;
    this.instance = options.instance;
    this.partition = options.partition;
    this.lost = new Promise((resolve) => (this.markLost = resolve));
  }

  get generation(): number {
    return this.generationValue;
  }

  /** Joins the group and resolves once this member is assigned the partition. */
  static acquire(kafka: Kafka, options: LeaseOptions): Promise<KafkaLease> {
    // The assigner asks, at each rebalance, whether this member holds the partition.
    const holder: { lease?: KafkaLease } = {};
    const consumer = kafka.consumer({
      groupId: options.groupId,
      ...GROUP_TIMING,
      allowAutoTopicCreation: false,
      partitionAssigners: [stickyAssigner(() => (holder.lease?.held ? { [options.topic]: [options.partition] } : {}))],
    });
    const self = new KafkaLease(consumer, options);
    holder.lease = self;
    return new Promise<KafkaLease>((resolve, reject) => {
      let granted = false;
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              if (granted) return;
              void self.release();
              reject(new Error(`${options.instance} was not granted ${options.component} within ${options.timeoutMs} ms`));
            }, options.timeoutMs);
      consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
        const mine = payload.memberAssignment[options.topic]?.includes(options.partition) ?? false;
        const generation = (payload as { generationId?: number }).generationId;
        if (mine) {
          self.held = true;
          self.generationValue = typeof generation === 'number' ? generation : self.generationValue + 1;
          if (!granted) {
            granted = true;
            if (timer) clearTimeout(timer);
            resolve(self);
          }
        } else if (self.held) {
          self.lose('the partition was assigned to another member');
        }
      });
      consumer.on(consumer.events.CRASH, ({ payload }) => self.lose(`the group member crashed: ${payload.error.message}`));
      consumer.on(consumer.events.STOP, () => self.lose('the group member stopped'));
      consumer.on(consumer.events.DISCONNECT, () => self.lose('the group member disconnected'));
      (async () => {
        await consumer.connect();
        await consumer.subscribe({ topic: options.topic, fromBeginning: false });
        await consumer.run({ autoCommit: false, eachBatch: async () => undefined });
        consumer.pause([{ topic: options.topic }]);
      })().catch((error: Error) => {
        if (timer) clearTimeout(timer);
        if (!granted) reject(error);
        self.lose(`the group member failed: ${error.message}`);
      });
    });
  }

  isHeld(): boolean {
    return this.held && !this.ended;
  }

  async release(): Promise<void> {
    this.lose('released');
    await this.consumer.disconnect().catch(() => undefined);
  }

  private lose(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.held = false;
    this.markLost(reason);
    if (reason !== 'released') void this.consumer.disconnect().catch(() => undefined);
  }
}
