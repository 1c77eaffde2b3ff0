import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import fc from 'fast-check';
import type { ClusterState } from '../state';
import { NodeTasks } from './node-tasks';

const NODES = ['n0', 'n1', 'n2', 'n3'];
const STATES = Object.values(TaskState).filter((s): s is TaskState => typeof s === 'number');

/** A state with these tasks only: each on a node or none, in a state. */
const stateOf = (tasks: readonly { node: number | undefined; state: TaskState }[]): ClusterState => {
  const map = new Map<string, Task>();
  tasks.forEach(({ node, state }, i) => {
    const id = `t${i}`;
    map.set(id, { id, ...(node === undefined ? {} : { nodeId: NODES[node] }), status: { state, at: '2026-01-01T00:00:00.000Z' } } as unknown as Task);
  });
  return { tasks: map } as unknown as ClusterState;
};

const holdings = (index: NodeTasks): string[][] => NODES.map((node) => [...index.of(node)]);

describe('the tasks each node holds', () => {
  const tasks = fc.array(fc.record({ node: fc.option(fc.nat(NODES.length - 1), { nil: undefined }), state: fc.constantFrom(...STATES) }), { maxLength: 40 });

  it('rebuilt from a state, are what looking at every task in turn finds, in the same order', () => {
    fc.assert(
      fc.property(tasks, tasks, (before, after) => {
        const state = stateOf(after);
        const rebuilt = new NodeTasks();
        rebuilt.rebuild(stateOf(before));
        rebuilt.rebuild(state);
        const touched = new NodeTasks();
        for (const id of state.tasks.keys()) touched.touch(state, id);
        expect(holdings(rebuilt)).toEqual(holdings(touched));
        // Which node holds each task, too: a task that goes is taken from the same node.
        const empty = stateOf([]);
        for (const id of state.tasks.keys()) expect(rebuilt.touch(empty, id)).toEqual(touched.touch(empty, id));
        expect(holdings(rebuilt)).toEqual(NODES.map(() => []));
      }),
    );
  });

  it('rebuilt a slice at a time while tasks come, change and go (each touched, as the events do), are what a rebuild of the end state finds', () => {
    // A step: look at `n` more tasks, or set task `t` (on a node or none, in a state), or delete it.
    const step = fc.oneof(
      fc.record({ kind: fc.constant('slice' as const), n: fc.nat(5) }),
      fc.record({ kind: fc.constant('set' as const), t: fc.nat(50), node: fc.option(fc.nat(NODES.length - 1), { nil: undefined }), state: fc.constantFrom(...STATES) }),
      fc.record({ kind: fc.constant('delete' as const), t: fc.nat(50) }),
    );
    fc.assert(
      fc.property(tasks, fc.array(step, { maxLength: 40 }), (start, steps) => {
        const state = stateOf(start);
        const index = new NodeTasks();
        index.restart(state);
        for (const s of steps) {
          if (s.kind === 'slice') {
            index.rebuildSome(state, s.n);
            continue;
          }
          const id = `t${s.t}`;
          if (s.kind === 'delete') state.tasks.delete(id);
          else state.tasks.set(id, { id, ...(s.node === undefined ? {} : { nodeId: NODES[s.node] }), status: { state: s.state, at: '2026-01-01T00:00:00.000Z' } } as unknown as Task);
          index.touch(state, id);
        }
        while (!index.whole) index.rebuildSome(state, 3);
        const rebuilt = new NodeTasks();
        rebuilt.rebuild(state);
        expect(holdings(index).map((ids) => [...ids].sort())).toEqual(holdings(rebuilt).map((ids) => [...ids].sort()));
      }),
    );
  });

  it('are whole once a slice finds no task left to look at, and each slice looks at one at least', () => {
    const state = stateOf([
      { node: 0, state: TaskState.RUNNING },
      { node: 1, state: TaskState.RUNNING },
      { node: 0, state: TaskState.RUNNING },
    ]);
    const index = new NodeTasks();
    index.restart(state);
    expect(index.whole).toBe(false);
    expect(index.rebuildSome(state, 0)).toBe(false);
    expect(holdings(index)).toEqual([['t0'], [], [], []]);
    expect(index.rebuildSome(state, 2)).toBe(false);
    expect(holdings(index)).toEqual([['t0', 't2'], ['t1'], [], []]);
    expect(index.rebuildSome(state, 1)).toBe(true);
    expect(index.whole).toBe(true);
  });

  it('are the tasks ASSIGNED or later on the node', () => {
    const index = new NodeTasks();
    index.rebuild(
      stateOf([
        { node: 0, state: TaskState.PENDING },
        { node: 0, state: TaskState.ASSIGNED },
        { node: undefined, state: TaskState.RUNNING },
        { node: 1, state: TaskState.RUNNING },
        { node: 0, state: TaskState.FAILED },
      ]),
    );
    expect(holdings(index)).toEqual([['t1', 't4'], ['t3'], [], []]);
  });
});
