/**
 * Failover, end to end through the runtime, run against every adapter
 * (ownership.unit.spec.ts on the embedded log, ownership.int.spec.ts on Kafka): the active
 * instance of a component loses its lease, a standby takes a newer term, and a late
 * append from the old owner — still believing itself active — is fenced by evolve in
 * every view, leaving the state hash where it was. And a lease won while the log refuses
 * appends is given back, not kept by an instance that never became active.
 */
import { stateHash } from '@shoal/domain';
import type { EventLog } from '@shoal/eventlog';
import { EventWriter } from './event-writer';
import { LiveView } from './live-view';
import { takeOwnership } from './ownership';

export interface FailoverLogs {
  /** The active instance's handle on the log. */
  readonly active: EventLog;
  /** The standby's handle on the same log: another process where the adapter allows it, else the same handle. */
  readonly standby: EventLog;
}

const CLUSTER = 'c1';

export const describeFailoverFencing = (name: string, makeLogs: () => Promise<FailoverLogs>): void => {
  describe(`failover fencing: ${name}`, () => {
    const cleanup: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const step of cleanup.splice(0).reverse()) await step();
    });

    const instance = async (log: EventLog, id: string) => {
      const view = new LiveView(log);
      await view.start();
      cleanup.push(() => view.stop());
      return { view, writer: new EventWriter(log, CLUSTER, 'reaper', id) };
    };

    it("hands the component to a standby under a newer term and fences the old owner's late append", async () => {
      const logs = await makeLogs();
      cleanup.push(async () => {
        await logs.active.close();
        if (logs.standby !== logs.active) await logs.standby.close();
      });
      const a = await instance(logs.active, 'reaper-a');
      const b = await instance(logs.standby, 'reaper-b');

      const first = await takeOwnership(logs.active, a.view, a.writer, { timeoutMs: 60_000 });
      expect(first.term).toBe(1);

      let bTookOver = false;
      const standing = takeOwnership(logs.standby, b.view, b.writer, { timeoutMs: 60_000 }).then((ownership) => {
        bTookOver = true;
        return ownership;
      });
      // While A holds the lease, B waits and A's writes are the cluster's.
      const [whileActive] = await a.writer.appendAndWait(a.view, [a.writer.propose('TasksRemoved', { tasks: [] })]);
      expect(whileActive).toMatchObject({ status: 'applied' });
      expect(bTookOver).toBe(false);

      await first.lease.release();
      const second = await standing;
      expect(second.term).toBe(2);
      expect(b.writer.term).toBe(2);

      // A never noticed: its writer still stamps term 1. The log takes the record; evolve fences it.
      expect(a.writer.term).toBe(1);
      await a.view.waitFor(await logs.active.highWaterMark());
      const before = stateHash(a.view.state);
      const [late] = await a.writer.appendAndWait(a.view, [a.writer.propose('TasksRemoved', { tasks: [] })]);
      expect(late).toMatchObject({ status: 'rejected', reasons: ['stale writer: reaper term 1 was superseded by term 2'] });
      expect(stateHash(a.view.state)).toBe(before);

      // The new owner's writes still apply, and both views agree on every record's verdict.
      const [afterwards] = await b.writer.appendAndWait(b.view, [b.writer.propose('TasksRemoved', { tasks: [] })]);
      expect(afterwards).toMatchObject({ status: 'applied' });
      const end = await logs.active.highWaterMark();
      await Promise.all([a.view.waitFor(end), b.view.waitFor(end)]);
      expect(stateHash(a.view.state)).toBe(stateHash(b.view.state));
      expect(a.view.state.terms.get('reaper')).toBe(2);
      expect(a.view.projection.refusals.flatMap((refusal) => refusal.reasons)).toEqual([
        'stale writer: reaper term 1 was superseded by term 2',
      ]);
      await second.lease.release();
    });

    it('gives back a lease it won but could not turn into a term, so a standby takes the component', async () => {
      const logs = await makeLogs();
      cleanup.push(async () => {
        await logs.active.close();
        if (logs.standby !== logs.active) await logs.standby.close();
      });
      // The active's handle refuses appends, as a log does while its broker restarts.
      const refusing = withRefusedAppends(logs.active);
      const a = await instance(refusing, 'reaper-a');
      const b = await instance(logs.standby, 'reaper-b');

      await expect(takeOwnership(refusing, a.view, a.writer, { timeoutMs: 30_000 })).rejects.toThrow('the log refused the append');
      const taken = await takeOwnership(logs.standby, b.view, b.writer, { timeoutMs: 30_000 });
      expect(taken.term).toBe(1);
      expect(taken.lease.isHeld()).toBe(true);
      await taken.lease.release();
    });
  });
};

/** `log` with every append refused (the rest of it as it is). */
const withRefusedAppends = (log: EventLog): EventLog =>
  new Proxy(log, {
    get(target, property, receiver) {
      if (property === 'append') return () => Promise.reject(new Error('the log refused the append'));
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
