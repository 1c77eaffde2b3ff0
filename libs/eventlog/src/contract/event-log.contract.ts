/**
 * The EventLog contract: one suite, run against every adapter (embedded/*.unit.spec.ts,
 * kafka/*.int.spec.ts). What the layers above rely on: positions, ordering, bounded reads,
 * following with no gap and no repeat, atomic batches, one lease holder at a time, and
 * records that outlive the process.
 */
import type { EventLog, LogRecord, OwnershipLease } from '../port';

/** A fresh, empty log for one test, and how to get at the same log again. */
export interface LogUnderTest {
  readonly log: EventLog;
  /** The same log opened anew, as a restarted process would; the suite closes `log` first. */
  readonly reopen?: () => Promise<EventLog>;
  /** Another handle on the same log, open at the same time (another process); where the adapter allows one. */
  readonly another?: () => Promise<EventLog>;
}

export type MakeLog = () => Promise<LogUnderTest>;

const record = (value: string, key = 'c1') => ({ key, value });
const values = (records: readonly LogRecord[]) => records.map((r) => r.value);
const offsets = (records: readonly LogRecord[]) => records.map((r) => r.offset);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds, polling; for tests only. */
export const until = async (check: () => boolean, timeoutMs = 30_000, what = 'a condition'): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
};

/** A follower that records what it is given and how often it reported being caught up. */
export const collect = (log: EventLog, from: number) => {
  const seen: LogRecord[] = [];
  const batches: number[] = [];
  let caughtUp = 0;
  const subscription = log.follow(
    from,
    (batch) => {
      batches.push(batch.length);
      seen.push(...batch);
    },
    { onCaughtUp: () => caughtUp++ },
  );
  return {
    seen,
    batches,
    caughtUp: () => caughtUp,
    /** Resolves once `count` records have arrived in all. */
    received: (count: number, timeoutMs = 30_000) => until(() => seen.length >= count, timeoutMs, `${count} records`),
    stop: () => subscription.stop(),
  };
};

export interface HandOverOptions {
  readonly component?: string;
  /** How the first holder lets go: release its lease, or close its whole log (a process going away). */
  readonly how?: 'release' | 'close';
  /** How long the standby must be seen waiting while the first holds. */
  readonly waitMs?: number;
  /** Runs while the first holds and the standby waits (append as the owner, say). */
  readonly whileFirstHolds?: (first: OwnershipLease) => Promise<void> | void;
  readonly timeoutMs?: number;
}

export interface HandOver {
  readonly first: OwnershipLease;
  readonly second: OwnershipLease;
  /** What the first lease's `lost` resolved with. */
  readonly firstLost: string;
  /** From the first letting go to the second being granted. */
  readonly handoverMs: number;
}

/**
 * The ownership handover every adapter must support: instance A acquires on `holder`,
 * instance B waits on `standby` (and must not be granted while A holds), A lets go, B is
 * granted and A's lease reports it lost.
 */
export const handOver = async (holder: EventLog, standby: EventLog, options: HandOverOptions = {}): Promise<HandOver> => {
  const component = options.component ?? 'scheduler';
  const timeoutMs = options.timeoutMs ?? 60_000;
  const first = await holder.acquire(component, 'instance-a', { timeoutMs });
  expect(first.isHeld()).toBe(true);
  let granted = false;
  const pending = standby.acquire(component, 'instance-b', { timeoutMs }).then((lease) => {
    granted = true;
    return lease;
  });
  await options.whileFirstHolds?.(first);
  await sleep(options.waitMs ?? 1_500);
  if (granted) throw new Error(`${component} was granted to a second instance while the first held it`);
  if (!first.isHeld()) throw new Error(`the first holder of ${component} lost it when a standby came: ${await first.lost}`);
  const letGo = Date.now();
  if (options.how === 'close') await holder.close();
  else await first.release();
  const second = await pending;
  const handoverMs = Date.now() - letGo;
  const firstLost = await first.lost;
  expect(first.isHeld()).toBe(false);
  expect(second.isHeld()).toBe(true);
  expect(second.instance).toBe('instance-b');
  expect(second.component).toBe(component);
  return { first, second, firstLost, handoverMs };
};

export const describeEventLogContract = (name: string, makeLog: MakeLog): void => {
  describe(`EventLog contract: ${name}`, () => {
    const opened: EventLog[] = [];
    const track = <L extends EventLog>(log: L): L => (opened.push(log), log);
    const fresh = async (): Promise<LogUnderTest> => {
      const made = await makeLog();
      track(made.log);
      return made;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((log) => log.close()));
    });

    it('starts empty', async () => {
      const { log } = await fresh();
      expect(await log.highWaterMark()).toBe(0);
      expect(await log.read(0)).toEqual([]);
    });

    it('gives a batch consecutive positions and reads back exactly what was written, in order', async () => {
      const { log } = await fresh();
      const big = 'x'.repeat(100 * 1024);
      const tricky = ['héllo ✓ 日本 🚢', 'line\nbreak "quoted" \\ back', '', '{"k":"not","v":"a frame"}'];
      expect(await log.append([record('a'), record('b')])).toEqual({ first: 0, last: 1 });
      expect(await log.append([record(tricky[0]!, 'c2'), record(big)])).toEqual({ first: 2, last: 3 });
      expect(await log.append(tricky.slice(1).map((value) => record(value, 'ключ')))).toEqual({ first: 4, last: 6 });
      const all = await log.read(0);
      expect(offsets(all)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(values(all)).toEqual(['a', 'b', tricky[0], big, ...tricky.slice(1)]);
      expect(all.map((r) => r.key)).toEqual(['c1', 'c1', 'c2', 'c1', 'ключ', 'ключ', 'ключ']);
    });

    it('bounds reads by from, to and max', async () => {
      const { log } = await fresh();
      await log.append(['0', '1', '2', '3', '4', '5'].map((v) => record(v)));
      expect(values(await log.read(2))).toEqual(['2', '3', '4', '5']);
      expect(values(await log.read(1, { to: 4 }))).toEqual(['1', '2', '3']);
      expect(values(await log.read(1, { max: 2 }))).toEqual(['1', '2']);
      expect(values(await log.read(1, { to: 5, max: 10 }))).toEqual(['1', '2', '3', '4']);
      expect(values(await log.read(1, { to: 5, max: 3 }))).toEqual(['1', '2', '3']);
      expect(values(await log.read(4, { to: 100 }))).toEqual(['4', '5']);
      expect(offsets(await log.read(5))).toEqual([5]);
      expect(await log.read(6)).toEqual([]);
      expect(await log.read(60)).toEqual([]);
      expect(await log.read(3, { to: 3 })).toEqual([]);
      expect(await log.read(3, { to: 1 })).toEqual([]);
      expect(await log.read(0, { max: 0 })).toEqual([]);
    });

    it('reports the high-water mark: the offset the next record will get', async () => {
      const { log } = await fresh();
      expect(await log.highWaterMark()).toBe(0);
      await log.append([record('a')]);
      expect(await log.highWaterMark()).toBe(1);
      const { last } = await log.append([record('b'), record('c'), record('d')]);
      expect(await log.highWaterMark()).toBe(last + 1);
      expect(await log.highWaterMark()).toBe(4);
    });

    it('follows from the start and from the middle, exactly once and in order, including appends made meanwhile', async () => {
      const { log } = await fresh();
      await log.append([record('0'), record('1'), record('2')]);
      const fromStart = collect(log, 0);
      const fromMiddle = collect(log, 2);
      await fromStart.received(3);
      await fromMiddle.received(1);
      await until(() => fromStart.caughtUp() > 0 && fromMiddle.caughtUp() > 0, 30_000, 'onCaughtUp');
      // Appends while following: singles and batches, some concurrent with delivery.
      for (let i = 3; i < 40; i += 3) await log.append([record(`${i}`), record(`${i + 1}`), record(`${i + 2}`)]);
      await log.append([record('42')]);
      const total = await log.highWaterMark();
      expect(total).toBe(43);
      await fromStart.received(total);
      await fromMiddle.received(total - 2);
      await sleep(300); // nothing more may arrive
      expect(offsets(fromStart.seen)).toEqual([...Array(total).keys()]);
      expect(offsets(fromMiddle.seen)).toEqual([...Array(total).keys()].slice(2));
      expect(fromStart.seen.map((r) => r.value)).toEqual([...Array(total).keys()].map(String));
      await fromStart.stop();
      await fromMiddle.stop();
    });

    it('reports a follower caught up even when there is nothing to deliver', async () => {
      const { log } = await fresh();
      const onEmpty = collect(log, 0);
      await until(() => onEmpty.caughtUp() > 0, 30_000, 'onCaughtUp on an empty log');
      await log.append([record('a'), record('b')]);
      const atEnd = collect(log, 2);
      await until(() => atEnd.caughtUp() > 0, 30_000, 'onCaughtUp at the end');
      await onEmpty.received(2);
      expect(atEnd.seen).toEqual([]);
      await onEmpty.stop();
      await atEnd.stop();
    });

    it('waits for the handler before delivering the next batch', async () => {
      const { log } = await fresh();
      let running = 0;
      let overlapped = false;
      const seen: number[] = [];
      const subscription = log.follow(0, async (batch) => {
        running++;
        overlapped ||= running > 1;
        await sleep(20);
        seen.push(...offsets(batch));
        running--;
      });
      for (let i = 0; i < 10; i++) await log.append([record(`${i}a`), record(`${i}b`)]);
      await until(() => seen.length >= 20, 30_000, '20 records');
      await subscription.stop();
      expect(overlapped).toBe(false);
      expect(seen).toEqual([...Array(20).keys()]);
    });

    it('stops delivering once stopped, and stop() waits for a running handler', async () => {
      const { log } = await fresh();
      await log.append([record('0')]);
      let inHandler = false;
      let entered!: () => void;
      const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
      const seen: string[] = [];
      const subscription = log.follow(0, async (batch) => {
        inHandler = true;
        entered();
        await sleep(200);
        seen.push(...values(batch));
        inHandler = false;
      });
      await handlerEntered;
      await subscription.stop();
      expect(inHandler).toBe(false);
      await log.append([record('1')]);
      await sleep(700);
      expect(seen).toEqual(['0']);
      await subscription.stop(); // twice is fine
    });

    it('never interleaves two concurrent appenders within a batch', async () => {
      const made = await fresh();
      const other = made.another ? track(await made.another()) : made.log;
      const batch = (tag: string, n: number) => Array.from({ length: 25 }, (_, i) => record(`${tag}${n}-${i}`));
      const appendMany = async (log: EventLog, tag: string) => {
        const results = [];
        for (let n = 0; n < 8; n++) results.push({ tag: `${tag}${n}-`, ...(await log.append(batch(tag, n))) });
        return results;
      };
      const results = (await Promise.all([appendMany(made.log, 'a'), appendMany(other, 'b')])).flat();
      const all = await made.log.read(0);
      expect(all).toHaveLength(2 * 8 * 25);
      for (const result of results) {
        expect(result.last - result.first).toBe(24);
        const slice = all.filter((r) => r.offset >= result.first && r.offset <= result.last);
        expect(values(slice)).toEqual(Array.from({ length: 25 }, (_, i) => `${result.tag}${i}`));
      }
    });

    it('grants a component to one holder at a time and hands it over on release', async () => {
      const made = await fresh();
      const standby = made.another ? track(await made.another()) : made.log;
      const { second, firstLost } = await handOver(made.log, standby);
      expect(firstLost).toBe('released');
      await second.release();
      expect(await second.lost).toBe('released');
    });

    it("lists a lease's holder and the instances waiting for it as its members, and says when they change", async () => {
      const made = await fresh();
      const standby = made.another ? track(await made.another()) : made.log;
      const holder = await made.log.acquire('orchestrator', 'instance-a', { timeoutMs: 60_000 });
      expect(holder.members()).toEqual(['instance-a']);
      const told: string[] = [];
      const stop = holder.onMembers((members) => told.push(members.join(',')));
      const waiting = standby.acquire('orchestrator', 'instance-b', { timeoutMs: 60_000 });
      await until(() => holder.members().join(',') === 'instance-a,instance-b', 30_000, 'the standby among the members');
      expect(told.at(-1)).toBe('instance-a,instance-b');
      stop();
      await holder.release();
      const second = await waiting;
      await until(() => second.members().join(',') === 'instance-b', 30_000, 'the first holder gone from the members');
      expect(told.at(-1)).toBe('instance-a,instance-b');
      await second.release();
    });

    it('keeps leases of different components apart', async () => {
      const { log } = await fresh();
      const scheduler = await log.acquire('scheduler', 'one', { timeoutMs: 60_000 });
      const allocator = await log.acquire('allocator', 'one', { timeoutMs: 60_000 });
      expect(scheduler.isHeld() && allocator.isHeld()).toBe(true);
      expect([scheduler.component, allocator.component]).toEqual(['scheduler', 'allocator']);
      await scheduler.release();
      expect(allocator.isHeld()).toBe(true);
      const again = await log.acquire('scheduler', 'two', { timeoutMs: 60_000 });
      expect(again.isHeld() && allocator.isHeld()).toBe(true);
      await Promise.all([again.release(), allocator.release()]);
    });

    it('gives up an acquire that is not granted in time', async () => {
      const { log } = await fresh();
      const holder = await log.acquire('reaper', 'one', { timeoutMs: 60_000 });
      const started = Date.now();
      await expect(log.acquire('reaper', 'two', { timeoutMs: 1_000 })).rejects.toThrow(/not granted reaper within 1000 ms/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(holder.isHeld()).toBe(true);
      await holder.release();
    });

    it('ends leases, refuses waiters and stops followers when closed; closing twice is fine', async () => {
      const { log } = await fresh();
      const lease = await log.acquire('dispatcher', 'one', { timeoutMs: 60_000 });
      const waiter = log.acquire('dispatcher', 'two', { timeoutMs: 60_000 });
      const refused = expect(waiter).rejects.toThrow();
      const follower = collect(log, 0);
      await until(() => follower.caughtUp() > 0, 30_000, 'onCaughtUp');
      await log.close();
      await log.close();
      expect(typeof (await lease.lost)).toBe('string');
      expect(lease.isHeld()).toBe(false);
      await refused;
      await expect(log.append([record('late')])).rejects.toThrow(/closed/);
      await follower.stop();
    });

    it('carries a record\'s headers to reads, followers and a reopened log, and gives a record written without any none', async () => {
      const made = await fresh();
      const traced = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'shoal=1' };
      await made.log.append([record('plain-0'), { ...record('traced-1'), headers: traced }, record('plain-2')]);
      await made.log.append([{ ...record('traced-3', 'c2'), headers: { traceparent: traced.traceparent } }]);
      const expected = [
        { offset: 0, key: 'c1', value: 'plain-0' },
        { offset: 1, key: 'c1', value: 'traced-1', headers: traced },
        { offset: 2, key: 'c1', value: 'plain-2' },
        { offset: 3, key: 'c2', value: 'traced-3', headers: { traceparent: traced.traceparent } },
      ];
      const read = await made.log.read(0);
      expect(read).toEqual(expected);
      // No empty object on a record without headers: the common case costs nothing.
      expect(read.filter((r) => 'headers' in r).map((r) => r.offset)).toEqual([1, 3]);
      const follower = collect(made.log, 0);
      await follower.received(4);
      expect(follower.seen).toEqual(expected);
      await follower.stop();
      if (!made.reopen) return;
      await made.log.close();
      const again = track(await made.reopen());
      expect(await again.read(0)).toEqual(expected);
    });

    it('keeps its records when opened again', async () => {
      const made = await fresh();
      await made.log.append([record('kept-0'), record('kept-1')]);
      await made.log.append([record('kept-2', 'c2')]);
      if (!made.reopen) return;
      await made.log.close();
      const again = track(await made.reopen());
      expect(await again.highWaterMark()).toBe(3);
      expect(await again.read(0)).toEqual([
        { offset: 0, key: 'c1', value: 'kept-0' },
        { offset: 1, key: 'c1', value: 'kept-1' },
        { offset: 2, key: 'c2', value: 'kept-2' },
      ]);
      expect(await again.append([record('kept-3')])).toEqual({ first: 3, last: 3 });
      const follower = collect(again, 1);
      await follower.received(3);
      expect(values(follower.seen)).toEqual(['kept-1', 'kept-2', 'kept-3']);
      await follower.stop();
    });

    it('reads and follows 20,000 records in order', async () => {
      const { log } = await fresh();
      const value = (i: number) => `{"n":${i},"pad":"${'p'.repeat(100)}"}`;
      for (let b = 0; b < 20; b++) await log.append(Array.from({ length: 1_000 }, (_, i) => record(value(b * 1_000 + i))));
      const all = await log.read(0);
      expect(all).toHaveLength(20_000);
      expect(all.every((r, i) => r.offset === i && r.value === value(i))).toBe(true);
      const follower = collect(log, 5_000);
      await follower.received(15_000);
      expect(follower.seen.every((r, i) => r.offset === 5_000 + i)).toBe(true);
      await follower.stop();
    });
  });
};
