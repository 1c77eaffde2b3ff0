import fc from 'fast-check';
import { histories } from '@shoal/testing';
import { replay } from './projection';
import { fromStateData, toStateData } from './snapshot';
import { stateHash } from './state-hash';
import type { ClusterState } from './state';

const TASK_FIELDS = ['id', 'serviceId', 'slot', 'nodeId', 'specVersion', 'spec', 'desiredState', 'replaces', 'jobIteration', 'createdAt', 'status', 'startedAt', 'attachments', 'ports', 'assignmentReason'];
const STATUS_FIELDS = ['state', 'at', 'message', 'err', 'exitCode', 'containerId', 'pid'];

const records = (values: readonly string[]) => values.map((value, offset) => ({ offset, value }));

/** Every task and every status in the state, with keys that differ from the one shape. */
const misshapen = (state: ClusterState): string[] => {
  const out: string[] = [];
  for (const task of state.tasks.values()) {
    if (Object.keys(task).join() !== TASK_FIELDS.join()) out.push(`task ${task.id}: ${Object.keys(task).join()}`);
    if (Object.keys(task.status).join() !== STATUS_FIELDS.join()) out.push(`task ${task.id} status: ${Object.keys(task.status).join()}`);
  }
  return out;
};

describe('stored tasks', () => {
  it('every task the state holds has all the fields, in one order, at every stage of its life', () => {
    let tasks = 0;
    fc.assert(
      fc.property(histories(), (log) => {
        const { state } = replay(records(log));
        tasks += state.tasks.size;
        expect(misshapen(state)).toEqual([]);
      }),
      { numRuns: 150 },
    );
    expect(tasks).toBeGreaterThan(0);
  });

  it('a state restored from a snapshot (JSON without the undefined fields) has them again, and the same hash', () => {
    fc.assert(
      fc.property(histories(), (log) => {
        const { state } = replay(records(log));
        const restored = fromStateData(JSON.parse(JSON.stringify(toStateData(state))));
        expect(misshapen(restored)).toEqual([]);
        expect(stateHash(restored)).toBe(stateHash(state));
      }),
      { numRuns: 100 },
    );
  });
});
