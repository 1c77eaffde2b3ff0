import fc from 'fast-check';
import { TaskState, encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { EventBuilder, clusterInit, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { Projection } from './projection';
import { emptyState } from './state';
import { stateHash } from './state-hash';
import { snapshotInSteps, takeSnapshot } from './snapshot';
import type { Snapshot } from './snapshot';
import { captureInSteps, captureNow, sortByKeyInSteps } from './snapshot-capture';
import type { CapturedState } from './snapshot-capture';

/** What may be done to a map while it is captured. */
type Op = { readonly kind: 'set'; readonly key: string; readonly value: number } | { readonly kind: 'delete'; readonly key: string } | { readonly kind: 'clear' };

const key = fc.constantFrom(...Array.from({ length: 12 }, (_, i) => `k${i}`));
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), key, value: fc.nat(1_000) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('delete' as const), key }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

const run = (map: Map<string, number>, o: Op): void => {
  if (o.kind === 'set') map.set(o.key, o.value);
  else if (o.kind === 'delete') map.delete(o.key);
  else map.clear();
};

describe('a state captured in steps', () => {
  it('is each map as it was when the capture began, in its order, whatever is set, deleted or cleared between the steps', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), fc.array(op, { maxLength: 60 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 4 }), (setup, during, perStep, opsPerStep) => {
        const state = emptyState();
        for (const o of setup) run(state.writers, o);
        const expected = captureNow(state);
        const steps = captureInSteps(state, perStep);
        let next = 0;
        let step: IteratorResult<void, CapturedState>;
        do {
          for (let i = 0; i < opsPerStep && next < during.length; i++) run(state.writers, during[next++]!);
          step = steps.next();
        } while (!step.done);
        expect(step.value).toEqual(expected);
        // The map is its own again: no method of the capture left on it.
        expect(Object.getOwnPropertyNames(state.writers)).toEqual([]);
        expect(state.writers.set).toBe(Map.prototype.set);
      }),
      { numRuns: 500 },
    );
  });

  it('ended early with return(), leaves the maps as they were', () => {
    const state = emptyState();
    state.writers.set('a', 1);
    const steps = captureInSteps(state, 1);
    expect(Object.getOwnPropertyNames(state.writers)).not.toEqual([]);
    steps.return(undefined as never);
    expect(Object.getOwnPropertyNames(state.writers)).toEqual([]);
    const snapshot = snapshotInSteps(state, 1, 1);
    snapshot.return(undefined as never);
    expect(Object.getOwnPropertyNames(state.writers)).toEqual([]);
  });

  it('sorts by key in steps as the array sort does', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { maxLength: 400 }), fc.integer({ min: 1, max: 50 }), (keys, perStep) => {
        const entries = keys.map((k, i) => [k, i] as const);
        const steps = sortByKeyInSteps(entries, perStep);
        let step = steps.next();
        while (!step.done) step = steps.next();
        expect(step.value).toEqual([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      }),
    );
  });
});

describe('a snapshot taken in steps while the view goes on', () => {
  const TASKS = 2_000;
  const b = new EventBuilder();
  const spec = serviceSpec('web', { kind: 'replicated', replicas: TASKS });
  const ids = Array.from({ length: TASKS }, (_, i) => `t${String(i).padStart(5, '0')}`);
  const head: ShoalEvent[] = [
    clusterInit(b),
    b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
    b.event('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('n2') }),
    b.event('ServiceCreated', { id: 's1', spec }),
    b.event('TasksCreated', { tasks: ids.map((id) => newTask(id, 's1', spec)) }),
    b.event('TasksAllocated', { tasks: ids.map((id) => ({ id, attachments: [] })) }),
    b.event('TasksAssigned', { tasks: ids.map((id, i) => ({ id, nodeId: i % 2 === 0 ? 'n1' : 'n2', why: 'test' })) }),
  ];
  /** What goes on meanwhile: every task reported on, some ending and removed (from the back, ahead of the capture), new ones, a node removed, a service added. */
  const tail: ShoalEvent[] = [];
  for (let end = TASKS; end > 0; end -= 50) {
    const some = ids.slice(end - 50, end);
    const onN1 = some.filter((_, j) => (end - 50 + j) % 2 === 0);
    const onN2 = some.filter((_, j) => (end - 50 + j) % 2 === 1);
    tail.push(b.event('TaskStatusesReported', { nodeId: 'n2', statuses: onN2.map((id) => ({ id, state: TaskState.RUNNING, at: b.now() })) }));
    tail.push(b.event('TaskStatusesReported', { nodeId: 'n1', statuses: onN1.map((id) => ({ id, state: TaskState.FAILED, at: b.now() })) }));
    tail.push(b.event('TasksRemoved', { tasks: onN1.map((id) => ({ id, reason: 'test' })) }));
  }
  tail.push(
    b.event('ServiceCreated', { id: 's2', spec: serviceSpec('api') }),
    b.event('TasksCreated', { tasks: [newTask('a1', 's2', serviceSpec('api')), newTask('t00000', 's1', spec)] }),
    b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] }),
    b.event('NodeRemoved', { id: 'n1', force: true }),
  );

  it('is taken in bounded steps, records applied between them, and is the state at its offset', () => {
    const live = new Projection();
    let offset = 0;
    for (const event of head) live.apply({ offset: offset++, value: encode(event) });
    const at = live.position;
    const expected = takeSnapshot(live.state, at);
    const perStep = 1; // entities a step: the capture copies 16 references a step, the hash hashes one entity
    const steps = snapshotInSteps(live.state, at, perStep);
    let next = 0;
    let count = 0;
    let step: IteratorResult<void, Snapshot>;
    do {
      if (next < tail.length) expect(live.apply({ offset: offset++, value: encode(tail[next++]!) })?.status).toBe('applied');
      step = steps.next();
      count++;
    } while (!step.done);
    // Every record of the tail went in while the snapshot's tasks were still being
    // captured (2,000 tasks, 16 a step: 125 steps after those of the services and nodes),
    // and they changed the view.
    expect(next).toBe(tail.length);
    expect(tail.length).toBeLessThanOrEqual(TASKS / 16);
    expect(count).toBeGreaterThan(TASKS);
    expect(live.state.tasks.size).toBe(TASKS / 2 + 2);
    expect(live.state.nodes.has('n1')).toBe(false);
    expect(stateHash(live.state)).not.toBe(expected.hash);
    // … and none of it is in the snapshot: the same bytes and hash as one taken at once at its offset.
    expect(JSON.stringify(step.value)).toBe(JSON.stringify(expected));
    const again = new Projection();
    head.forEach((event, i) => again.apply({ offset: i, value: encode(event) }));
    expect(step.value.hash).toBe(stateHash(again.state));
    const restored = Projection.fromSnapshot(JSON.parse(JSON.stringify(step.value)) as Snapshot);
    if (typeof restored === 'string') throw new Error(restored);
    expect([...restored.state.tasks.keys()]).toEqual([...again.state.tasks.keys()]);
  });
});
