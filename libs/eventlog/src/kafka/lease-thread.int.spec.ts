import { randomUUID } from 'node:crypto';
import { KafkaTestTopic } from '@shoal/testing';
import { LeaseThread } from './lease-thread';

// The lease's group member lives on a thread of its own; the main thread tells it, every
// second, that it still answers. A main thread stuck past the stall limit gives the lease up.
describe('a lease on a thread of its own', () => {
  const topic = new KafkaTestTopic('lease-thread');
  afterAll(() => topic.close());

  const start = (instance: string, stallLimitMs?: number): LeaseThread =>
    LeaseThread.start(
      { clientId: instance, brokers: [...topic.brokers] },
      // A long lease: only the stall limit may end these leases.
      { groupId: `shoal-test-${randomUUID()}.reaper`, topic: topic.name, partition: 0, component: 'reaper', instance, timeoutMs: 60_000, leaseTimeoutMs: 10_000 },
      stallLimitMs,
    );

  it('gives the lease up when the main thread stops answering for longer than the stall limit', async () => {
    await topic.open(); // creates the topic
    const lease = await start('stuck', 3_000).granted;
    expect(lease.isHeld()).toBe(true);
    const stuckUntil = Date.now() + 6_000;
    while (Date.now() < stuckUntil) {
      // stuck
    }
    await expect(lease.lost).resolves.toMatch(/main thread did not answer for \d+ s/);
    expect(lease.isHeld()).toBe(false);
    await lease.release();
  });

  it('keeps the lease while the main thread answers, and hands it over on release', async () => {
    const lease = await start('answering', 5_000).granted;
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    expect(lease.isHeld()).toBe(true);
    await lease.release();
    expect(await lease.lost).toBe('released');
  });
});
