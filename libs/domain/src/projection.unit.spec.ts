import fc from 'fast-check';
import { decode } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import { histories, toRecords } from '@shoal/testing';
import { Projection, replay } from './projection';
import { emptyState } from './state';
import { evolve } from './evolve';
import { stateHash } from './state-hash';
import { snapshotInSteps } from './snapshot';
import type { Snapshot } from './snapshot';
import { rebuildReservations } from './reservations';

const RUNS = { numRuns: 200 };
const records = (values: readonly string[]) => values.map((value, offset) => ({ offset, value }));

describe('replay properties', () => {
  it('the same log replays to the same hash, every time, from re-read bytes', () => {
    fc.assert(
      fc.property(histories(), (log) => {
        const once = replay(records(log));
        const again = replay(records(log.map((value) => String(value))));
        expect(again.hash()).toBe(once.hash());
        expect(again.tally).toEqual(once.tally);
        expect(once.tally.applied + once.tally.partial + once.tally.rejected + once.tally.poison).toBe(log.length);
      }),
      RUNS,
    );
  });

  it('applying every record twice changes nothing', () => {
    fc.assert(
      fc.property(histories(), (log) => {
        const doubled = log.flatMap((value) => [value, value]);
        expect(replay(records(doubled)).hash()).toBe(replay(records(log)).hash());
      }),
      RUNS,
    );
  });

  it('a snapshot at any offset plus the tail equals the full replay', () => {
    fc.assert(
      fc.property(histories(), fc.nat(), (log, at) => {
        const cut = at % (log.length + 1);
        const full = replay(records(log));
        const head = replay(records(log), { to: cut });
        // through the bytes, as a snapshot file would travel
        const snapshot = JSON.parse(JSON.stringify(head.snapshot()));
        const restored = Projection.fromSnapshot(snapshot);
        if (typeof restored === 'string') throw new Error(restored);
        expect(restored.position).toBe(cut);
        restored.applyAll(records(log));
        expect(restored.hash()).toBe(full.hash());
        expect([...restored.state.reserved.entries()].sort()).toEqual([...full.state.reserved.entries()].sort());
      }),
      RUNS,
    );
  });

  it('a snapshot taken in steps, with the rest of the log applied between them, is the snapshot of where it began', () => {
    fc.assert(
      fc.property(histories(), fc.nat(), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 4 }), (log, at, perStep, recordsPerStep) => {
        const cut = at % (log.length + 1);
        const live = replay(records(log), { to: cut });
        const expected = JSON.stringify(live.snapshot());
        const steps = snapshotInSteps(live.state, live.position, perStep);
        let next = cut;
        let step: IteratorResult<void, Snapshot>;
        do {
          // the view goes on: records are applied before the first step and between the others
          for (let i = 0; i < recordsPerStep && next < log.length; i++, next++) live.apply({ offset: next, value: log[next]! });
          step = steps.next();
        } while (!step.done);
        expect(JSON.stringify(step.value)).toBe(expected);
        expect(step.value.hash).toBe(stateHash(replay(records(log), { to: cut }).state));
      }),
      RUNS,
    );
  });

  it('task states and desired states never decrease', () => {
    fc.assert(
      fc.property(histories(), (log) => {
        const state = emptyState();
        for (const value of log) {
          const before = new Map<string, Task>(state.tasks);
          const decoded = decode(value);
          if (decoded.ok) evolve(state, decoded.event);
          for (const [id, task] of state.tasks) {
            const was = before.get(id);
            if (!was) continue;
            expect(task.status.state).toBeGreaterThanOrEqual(was.status.state);
            expect(task.desiredState).toBeGreaterThanOrEqual(was.desiredState);
          }
        }
      }),
      RUNS,
    );
  });

  it('a refused record leaves the state hash where it was', () => {
    fc.assert(
      fc.property(histories(), (log) => {
        const state = emptyState();
        for (const value of log) {
          const decoded = decode(value);
          if (!decoded.ok) continue;
          const before = stateHash(state);
          const verdict = evolve(state, decoded.event);
          if (verdict.status === 'rejected') expect(stateHash(state)).toBe(before);
        }
      }),
      RUNS,
    );
  });

  it('reservations kept along the way equal reservations rebuilt from the tasks', () => {
    fc.assert(
      fc.property(histories(), (log) => {
        const projection = replay(records(log));
        const kept = [...projection.state.reserved.entries()].sort();
        rebuildReservations(projection.state);
        expect([...projection.state.reserved.entries()].sort()).toEqual(kept);
      }),
      RUNS,
    );
  });

  it('histories exercise every verdict', () => {
    const tally = { applied: 0, partial: 0, rejected: 0, poison: 0 };
    fc.assert(
      fc.property(histories(), (log) => {
        const { tally: t } = replay(records(log));
        tally.applied += t.applied;
        tally.partial += t.partial;
        tally.rejected += t.rejected;
        tally.poison += t.poison;
      }),
      { numRuns: 100, seed: 42 },
    );
    for (const count of Object.values(tally)) expect(count).toBeGreaterThan(0);
  });
});

describe('Projection', () => {
  it('lists poison and refused records with their reasons and keeps going', () => {
    const projection = replay(toRecords(['{"broken', '{"id":"x"}']));
    expect(projection.position).toBe(2);
    expect(projection.tally.poison).toBe(2);
    expect(projection.refusals.map((r) => r.status)).toEqual(['poison', 'poison']);
    expect(projection.refusals[0]?.reasons[0]).toMatch(/unparseable/);
  });

  it('skips records before its position', () => {
    const projection = new Projection(emptyState(), 5);
    expect(projection.apply({ offset: 3, value: '{"broken' })).toBeUndefined();
    expect(projection.tally.poison).toBe(0);
  });

  it('refuses a snapshot whose hash does not match its state', () => {
    const snapshot = replay([]).snapshot();
    expect(Projection.fromSnapshot({ ...snapshot, hash: 'f'.repeat(64) })).toMatch(/snapshot hash mismatch/);
  });
});
