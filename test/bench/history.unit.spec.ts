import { replay } from '@shoal/domain';
import { TaskState } from '@shoal/contracts';
import { benchHistory } from './history';

describe('the benchmark history', () => {
  const records = [...benchHistory({ records: 5_000, nodes: 20, services: 5 })].map((value, offset) => ({ offset, value }));

  it('has exactly the records asked for, and evolve applies every one of them', () => {
    expect(records).toHaveLength(5_000);
    const projection = replay(records);
    expect(projection.tally).toMatchObject({ applied: 5_000, partial: 0, rejected: 0, poison: 0 });
  });

  it('leaves a running cluster: nodes, services and the tasks of every tenth round still RUNNING', () => {
    const { state } = replay(records);
    expect(state.nodes.size).toBe(20);
    expect(state.services.size).toBe(5);
    const running = [...state.tasks.values()].filter((task) => task.status.state === TaskState.RUNNING);
    expect(running.length).toBeGreaterThan(0);
    // Only the round the log ends in may be cut short of RUNNING (one batch of 10).
    expect(state.tasks.size - running.length).toBeLessThanOrEqual(10);
  });

  it('is the same log every time', () => {
    const again = [...benchHistory({ records: 5_000, nodes: 20, services: 5 })];
    expect(again).toEqual(records.map((r) => r.value));
  });
});
