import { randomUUID } from 'node:crypto';
import { logLevel } from 'kafkajs';
import { KafkaEventLog } from './kafka-event-log';
import { testBrokers } from '@shoal/testing';
import { LeaseHost } from './lease-thread';
import type { LeaseThread } from './lease-thread';

// A process that runs a component for many partitions holds a lease per partition: the
// leases of one host share one thread and one Kafka client. Two hosts stand for two
// processes. Which host holds which partition is the group assigner's choice: only one
// holder per partition, and the handover, are asserted.
describe('leases on one thread per host', () => {
  const brokers = testBrokers();
  const topic = `shoal-test-${randomUUID()}.events`;
  const groupPrefix = `shoal-test-${randomUUID()}`;
  const PARTITIONS = [0, 1, 2, 3];
  const hosts: LeaseHost[] = [];
  let log: KafkaEventLog | undefined;

  beforeAll(async () => {
    log = await KafkaEventLog.open({ brokers, topic, partitions: PARTITIONS.length, clientId: 'lease-host' }); // creates the topic
  });
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.close()));
    await log?.close();
  });

  const host = (instance: string): LeaseHost => {
    const made = new LeaseHost({ clientId: instance, brokers: [...brokers], logLevel: logLevel.ERROR });
    hosts.push(made);
    return made;
  };
  const lease = (on: LeaseHost, instance: string, partition: number, component = 'scheduler'): LeaseThread =>
    on.start({ groupId: `${groupPrefix}.${component}`, topic, partition, component, instance });

  const until = async (what: string, done: () => boolean, withinMs = 60_000): Promise<void> => {
    const deadline = Date.now() + withinMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** The holders of each partition, by instance. */
  const holders = (leases: readonly LeaseThread[]): string[][] =>
    PARTITIONS.map((partition) => leases.filter((one) => one.partition === partition && one.isHeld()).map((one) => one.instance));

  /**
   * A component's runner for one partition on a host: a lease, acquired again when the group
   * moves the partition away (the assigner may, to balance the instances); a lease released
   * (by hand, or by its host's close) stays ended.
   */
  class Seat {
    lease: LeaseThread;
    constructor(
      readonly on: LeaseHost,
      readonly instance: string,
      readonly partition: number,
    ) {
      this.lease = this.acquire();
    }
    private acquire(): LeaseThread {
      const acquired = lease(this.on, this.instance, this.partition);
      void acquired.lost.then((reason) => {
        if (reason !== 'released') this.lease = this.acquire();
      });
      return acquired;
    }
  }
  const holdersOf = (seats: readonly Seat[]): string[][] => holders(seats.map((seat) => seat.lease));

  it('holds each partition by exactly one host, every host on one thread, and hands a released lease and a closed host over', async () => {
    const a = host('host-a');
    const b = host('host-b');
    const ofA = PARTITIONS.map((partition) => new Seat(a, 'host-a', partition));
    const ofB = PARTITIONS.map((partition) => new Seat(b, 'host-b', partition));
    const seats = [...ofA, ...ofB];
    expect([a.threads, b.threads]).toEqual([1, 1]);
    expect([a.leases, b.leases]).toEqual([4, 4]);

    const settled = (): boolean => holdersOf(seats).every((held) => held.length === 1);
    await until('each partition held by exactly one lease', settled);
    // Held, and staying so: no partition gets a second holder as the group settles.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await until('each partition held by exactly one lease', settled);
    expect([a.threads, b.threads]).toEqual([1, 1]);
    expect([a.leases, b.leases]).toEqual([4, 4]);

    // One lease of a host released: the host's other leases stay held, the other host's standby takes the partition.
    const released = seats.find((seat) => seat.lease.isHeld());
    if (!released) throw new Error('no lease is held');
    const owner = released.on;
    const stillHeld = seats.filter((seat) => seat !== released && seat.on === owner && seat.lease.isHeld()).map((seat) => seat.lease);
    const standby = seats.find((seat) => seat.on !== owner && seat.partition === released.partition)!;
    await released.lease.release();
    expect(await released.lease.lost).toBe('released');
    await until('the standby holds the released partition', () => standby.lease.isHeld());
    await until('each partition held by exactly one lease', settled);
    expect(stillHeld.every((held) => held.isHeld())).toBe(true);
    expect(owner.threads).toBe(1);
    expect(owner.leases).toBe(3);

    // Host A closed: host B's leases hold every partition.
    await a.close();
    expect(ofA.every((seat) => !seat.lease.isHeld())).toBe(true);
    expect([a.threads, a.leases]).toEqual([0, 0]);
    await until('host B holds every partition', () => holdersOf(seats).every((held) => held.join() === 'host-b'));
    expect(b.threads).toBe(1);

    await b.close();
    expect(ofB.every((seat) => !seat.lease.isHeld())).toBe(true);
    expect([b.threads, b.leases]).toEqual([0, 0]);
    expect(() => lease(b, 'host-b', 0)).toThrow(/closed/);
  });

  it('ends its thread with the last lease, and starts a new one for a lease started as it ends', async () => {
    const c = host('host-c');
    const first = await lease(c, 'host-c', 0, 'reaper').granted;
    expect(c.threads).toBe(1);
    await first.release();
    // The thread was told to end as the member left: the next lease must not go to it.
    const second = lease(c, 'host-c', 0, 'reaper');
    await second.granted;
    expect(second.isHeld()).toBe(true);
    await until('the ended thread exited', () => c.threads === 1, 10_000);
    await second.release();
    await until('the thread ended with its last lease', () => c.threads === 0, 10_000);
    await c.close();
  });
});
