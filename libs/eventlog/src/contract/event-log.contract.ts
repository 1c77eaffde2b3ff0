/**
 * The EventLog contract: one suite, run against every adapter (embedded and Kafka).
 * What the layers above rely on: positions, ordering, bounded reads, following with no
 * gaps or repeats, atomic batches, ownership one holder at a time, and durability.
 */
import { EventWriter, LiveView, takeOwnership } from '@shoal/runtime';
import type { EventLog, LogRecord, OwnershipLease } from '../port';

export interface LogFactory {
  /** A fresh, empty log. */
  open(): Promise<EventLog>;
  /** The same log again, as another process would open it (after `log` closed). */
  reopen(log: EventLog): Promise<EventLog>;
  /** Another handle on the same log, open at the same time (another process); undefined if the adapter has none. */
  another?(log: EventLog): Promise<EventLog>;
}

const rec = (value: string, key = 'c1') => ({ key, value });

/** Collects what a follower delivers until `count` records have arrived. */
export const collect = (log: EventLog, from: number, count: number, timeoutMs = 30_000) => {
  const seen: LogRecord[] = [];
  let caughtUp = 0;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const subscription = log.follow(
    from,
    (batch) => {
      seen.push(...batch);
      if (seen.length >= count) finish();
    },
    { onCaughtUp: () => caughtUp++ },
  );
  if (count === 0) finish();
  const timer = setTimeout(finish, timeoutMs);
  return {
    seen,
    caughtUp: () => caughtUp,
    done: done.then(() => clearTimeout(timer)),
    stop: () => subscription.stop(),
  };
};

const until = async (check: () => boolean, timeoutMs = 30_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/**
 * The ownership handover every adapter must support: A holds, B waits, A releases, B
 * holds and A's lease reports it lost. Returns both leases for further checks.
 */
export const handOver = async (a: EventLog, b: EventLog, component: string): Promise<{ first: OwnershipLease; second: OwnershipLease }> => {
  const first = await a.acquire(component, 'instance-a', { timeoutMs: 60_000 });
  let secondGranted = false;
  const pending = b.acquire(component, 'instance-b', { timeoutMs: 60_000 }).then((lease) => {
    secondGranted = true;
    return lease;
  });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  if (secondGranted) throw new Error('a second instance was granted the lease while the first held it');
  if (!first.isHeld()) throw new Error('the first holder lost its lease when a standby joined');
  await first.release();
  const second = await pending;
  return { first, second };
};

export const describeEventLogContract = (name: string, factory: LogFactory): void => {
  describe(`EventLog contract: ${name}`, () => {
    let log: EventLog;
    const opened: EventLog[] = [];
    const track = (l: EventLog) => (opened.push(l), l);
    beforeEach(async () => {
      log = track(await factory.open());
    });
    afterEach(async () => {
      for (const l of opened.splice(0)) await l.close();
    });

    it('starts empty', async () => {
      expect(await log.highWaterMark()).toBe(0);
      expect(await log.read(0)).toEqual([]);
    });

    it('gives a batch consecutive positions and reads back exactly what was written, in order', async () => {
      const big = 'x'.repeat(100 * 1024);
      const first = await log.append([rec('a'), rec('b')]);
      const second = await log.append([rec('héllo ✓ 日本 🚢', 'c2'), rec(big)]);
      expect(first).toEqual({ first: 0, last: 1 });
      expect(second).toEqual({ first: 2, last: 3 });
      expect(await log.highWaterMark()).toBe(4);
      const all = await log.read(0);
      expect(all.map((r) => r.offset)).toEqual([0, 1, 2, 3]);
      expect(all.map((r) => r.value)).toEqual(['a', 'b', 'héllo ✓ 日本 🚢', big]);
      expect(all[2]?.key).toBe('c2');
    });

    it('bounds reads by from, to and max', async () => {
      await log.append(['0', '1', '2', '3', '4', '5'].map((v) => rec(v)));
      expect((await log.read(2)).map((r) => r.value)).toEqual(['2', '3', '4', '5']);
      expect((await log.read(1, { to: 4 })).map((r) => r.value)).toEqual(['1', '2', '3']);
      expect((await log.read(1, { max: 2 })).map((r) => r.value)).toEqual(['1', '2']);
      expect(await log.read(6)).toEqual([]);
    });

    it('follows from the start and from the middle, exactly once and in order, including later appends', async () => {
      await log.append([rec('0'), rec('1'), rec('2')]);
      const fromStart = collect(log, 0, 5);
      const fromMiddle = collect(log, 2, 3);
      await until(() => fromStart.seen.length >= 3 && fromMiddle.seen.length >= 1);
      await log.append([rec('3')]);
      await log.append([rec('4')]);
      await Promise.all([fromStart.done, fromMiddle.done]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(fromStart.seen.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
      expect(fromStart.seen.map((r) => r.value)).toEqual(['0', '1', '2', '3', '4']);
      expect(fromMiddle.seen.map((r) => r.offset)).toEqual([2, 3, 4]);
      expect(fromStart.caughtUp()).toBeGreaterThan(0);
      await fromStart.stop();
      await fromMiddle.stop();
    });

    it('stops delivering once stopped', async () => {
      await log.append([rec('0')]);
      const follower = collect(log, 0, 1);
      await follower.done;
      await follower.stop();
      await log.append([rec('1')]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(follower.seen.map((r) => r.value)).toEqual(['0']);
    });

    it('never interleaves two concurrent batches', async () => {
      const batch = (tag: string) => Array.from({ length: 50 }, (_, i) => rec(`${tag}${i}`));
      const [a, b] = await Promise.all([log.append(batch('a')), log.append(batch('b'))]);
      expect(a.last - a.first).toBe(49);
      expect(b.last - b.first).toBe(49);
      const values = (await log.read(0)).map((r) => r.value);
      const aStart = values.indexOf('a0');
      const bStart = values.indexOf('b0');
      expect(values.slice(aStart, aStart + 50)).toEqual(batch('a').map((r) => r.value));
      expect(values.slice(bStart, bStart + 50)).toEqual(batch('b').map((r) => r.value));
    });

    it('keeps its records when opened again', async () => {
      await log.append([rec('kept-0'), rec('kept-1')]);
      opened.splice(opened.indexOf(log), 1);
      const again = track(await factory.reopen(log));
      expect(await again.highWaterMark()).toBe(2);
      expect((await again.read(0)).map((r) => r.value)).toEqual(['kept-0', 'kept-1']);
      expect(await again.append([rec('kept-2')])).toEqual({ first: 2, last: 2 });
    });

    it('grants a component to one holder at a time and hands it over on release', async () => {
      const other = factory.another ? track(await factory.another(log)) : log;
      const { first, second } = await handOver(log, other, 'scheduler');
      expect(await first.lost).toBe('released');
      expect(first.isHeld()).toBe(false);
      expect(second.isHeld()).toBe(true);
      expect(second.instance).toBe('instance-b');
      await second.release();
    });

    it('fences the old owner: after a handover its late append is rejected by evolve', async () => {
      const other = factory.another ? track(await factory.another(log)) : log;
      // A owns the scheduler under term 1.
      const viewA = new LiveView(log);
      await viewA.start();
      const writerA = new EventWriter(log, 'c1', 'scheduler', 'scheduler-a');
      const ownerA = await takeOwnership(log, viewA, writerA, { timeoutMs: 60_000 });
      expect(ownerA.term).toBe(1);
      // B waits for the lease, gets it when A's lease goes, and takes term 2.
      const viewB = new LiveView(other);
      await viewB.start();
      const writerB = new EventWriter(other, 'c1', 'scheduler', 'scheduler-b');
      const pendingB = takeOwnership(other, viewB, writerB, { timeoutMs: 60_000 });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await ownerA.lease.release();
      const ownerB = await pendingB;
      expect(ownerB.term).toBe(2);
      // A, not knowing, still proposes under term 1: the log takes the record, evolve refuses it.
      const [late] = await writerA.appendAndWait(viewA, [writerA.propose('TasksUnschedulable', { tasks: [] })]);
      expect(late?.status).toBe('rejected');
      expect(late?.reasons[0]).toMatch(/stale writer: scheduler term 1 was superseded by term 2/);
      // B acts under its term and is accepted; both views agree on the state.
      const [mine] = await writerB.appendAndWait(viewB, [writerB.propose('TasksUnschedulable', { tasks: [] })]);
      expect(mine?.status).toBe('applied');
      await viewA.waitFor(await log.highWaterMark());
      expect(viewA.projection.hash()).toBe(viewB.projection.hash());
      await ownerB.lease.release();
      await viewA.stop();
      await viewB.stop();
    });

    it('keeps leases of different components apart', async () => {
      const scheduler = await log.acquire('scheduler', 'one', { timeoutMs: 60_000 });
      const allocator = await log.acquire('allocator', 'one', { timeoutMs: 60_000 });
      expect(scheduler.isHeld() && allocator.isHeld()).toBe(true);
      await scheduler.release();
      expect(allocator.isHeld()).toBe(true);
      await allocator.release();
    });
  });
};
