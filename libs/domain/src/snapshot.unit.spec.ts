import fc from 'fast-check';
import type { Task } from '@shoal/contracts';
import { histories } from '@shoal/testing';
import { Projection, replay } from './projection';
import { SNAPSHOT_FORMAT, STATE_DATA_FORMAT, fromStateData, takeSnapshot, toStateData } from './snapshot';
import type { Snapshot, SnapshotStateData } from './snapshot';
import { stateHash } from './state-hash';
import type { ClusterState } from './state';

const records = (values: readonly string[]) => values.map((value, offset) => ({ offset, value }));
const throughBytes = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The same state with every task's spec a copy of its own: equal, but shared by none. */
const unshared = (state: ClusterState): ClusterState => {
  const tasks = new Map<string, Task>();
  for (const [id, task] of state.tasks) tasks.set(id, { ...task, spec: structuredClone(task.spec) });
  return { ...state, tasks };
};

const distinctSpecs = (state: ClusterState): number => new Set([...state.tasks.values()].map((task) => task.spec)).size;

describe('snapshots', () => {
  it('write each spec the tasks share once, and a restored state shares them again, with the same hash', () => {
    let shared = 0;
    fc.assert(
      fc.property(histories(), (log) => {
        const { state } = replay(records(log));
        const snapshot = throughBytes(takeSnapshot(state, log.length));
        const data = snapshot.state as SnapshotStateData;
        expect(data.format).toBe(SNAPSHOT_FORMAT);
        expect(data.specs).toHaveLength(distinctSpecs(state));
        const restored = Projection.fromSnapshot(snapshot);
        if (typeof restored === 'string') throw new Error(restored);
        expect(restored.hash()).toBe(stateHash(state));
        expect(distinctSpecs(restored.state)).toBe(data.specs.length);
        expect([...restored.state.tasks.values()].map((task) => task.spec)).toEqual([...state.tasks.values()].map((task) => task.spec));
        if (state.tasks.size > data.specs.length) shared++;
      }),
      { numRuns: 150 },
    );
    // The histories do make tasks that share a spec.
    expect(shared).toBeGreaterThan(0);
  });

  it('restore as written before, every task whole (format 1), to the same state and hash', () => {
    fc.assert(
      fc.property(histories(), (log) => {
        const { state } = replay(records(log));
        const before: Snapshot = throughBytes({ offset: log.length, hash: stateHash(state), state: toStateData(state) });
        expect(before.state.format).toBe(STATE_DATA_FORMAT);
        const restored = Projection.fromSnapshot(before);
        if (typeof restored === 'string') throw new Error(restored);
        expect(restored.hash()).toBe(stateHash(state));
        expect(toStateData(restored.state)).toEqual(throughBytes(toStateData(state)));
      }),
      { numRuns: 100 },
    );
  });

  it('hash a state the same whether its tasks share their specs or each hold a copy', () => {
    fc.assert(
      fc.property(histories(), (log) => {
        const { state } = replay(records(log));
        expect(stateHash(unshared(state))).toBe(stateHash(state));
      }),
      { numRuns: 100 },
    );
  });

  it('is about half the size with a hundred tasks of one service', () => {
    const log = records([]);
    const state = replay(log).state;
    const spec = { container: { image: 'registry.local/app:1.0', env: ['MODE=prod'], command: ['/bin/app'], args: ['--port', '8080'] }, resources: { reservations: { nanoCpus: 1e7, memoryBytes: 2 ** 24 } } };
    for (let i = 0; i < 100; i++) {
      const task = { id: `t${i}`, serviceId: 's', slot: i, specVersion: 1, spec, desiredState: 512, createdAt: '2026-01-01T00:00:00.000Z', status: { state: 0, at: '2026-01-01T00:00:00.000Z' } } as unknown as Task;
      state.tasks.set(task.id, task);
    }
    const written = JSON.stringify(takeSnapshot(state, 0));
    const whole = JSON.stringify({ offset: 0, hash: stateHash(state), state: toStateData(state) });
    expect((takeSnapshot(state, 0).state as SnapshotStateData).specs).toEqual([spec]);
    expect(written.length).toBeLessThan(whole.length * 0.6);
    const restored = fromStateData(JSON.parse(written).state);
    expect(new Set([...restored.tasks.values()].map((task) => task.spec)).size).toBe(1);
  });

  it('refuses a snapshot whose task names a spec it does not hold, and one of a format it does not know', () => {
    const state = replay(records([])).state;
    state.tasks.set('t1', { id: 't1', serviceId: 's', slot: 1, specVersion: 1, spec: { container: { image: 'x' } }, desiredState: 512, createdAt: 'now', status: { state: 0, at: 'now' } } as unknown as Task);
    const snapshot = throughBytes(takeSnapshot(state, 0));
    const broken = { ...snapshot, state: { ...(snapshot.state as SnapshotStateData), specs: [] } };
    expect(Projection.fromSnapshot(broken)).toBe("unreadable snapshot: task t1: spec 0 is not in the snapshot's 0 specs");
    expect(Projection.fromSnapshot({ ...snapshot, state: { ...snapshot.state, format: 3 } as unknown as Snapshot['state'] })).toBe('unsupported snapshot format 3');
  });
});
