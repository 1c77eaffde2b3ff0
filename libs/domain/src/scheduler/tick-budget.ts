/**
 * How much one decision may do. A backlog of hundreds of thousands of PENDING tasks is
 * placed over many ticks, a slice each, so that the process keeps serving between them
 * (issue 28: no tick or pause above 50 ms); the rest stay queued, in the order they came.
 * The work is counted in nodes looked at, not in time, so that the same view and queue
 * always give the same slice: a batch's decision tree looks at every node once (none when
 * the batch goes on with the tree the last tick kept: continued-batch.ts), and a task costs
 * about as much as TASK_COST nodes did when the weights were set (its heap moves, the
 * filters again, its why: about 4 µs, against 0.6 µs a node). A node looked at costs far
 * less now where a batch's candidates are kept (candidates.ts), and a task about 1 µs: a
 * tick of this budget takes less time than it did, and its slices, and so the records they
 * make, are the same.
 */

/** A task placed or refused, in nodes looked at. */
export const TASK_COST = 6;

/**
 * What a tick may spend by default: at 5,000 nodes, six batches of 1,000 tasks (11,000
 * each), or 11,666 tasks of a larger one, 12,500 of its rest — about 50 ms on a 2-core
 * machine when it was set. A fifth of it (one batch a tick) kept ticks near 10 ms, but at C1M's
 * size the thousand smaller TasksAssigned records cost the dispatcher and the agents more
 * than the scheduler saved: all RUNNING in 342 s against 212 s with this budget (docs/benchmarks.md).
 */
export const TICK_BUDGET = 75_000;

export class TickBudget {
  private spent = 0;

  constructor(private readonly limit: number) {}

  /**
   * Spends `cost` if the budget allows it; the first spending of a tick is always allowed,
   * so that every tick makes progress however small the budget or costly the batch.
   */
  spend(cost: number): boolean {
    if (this.spent > 0 && this.spent + cost > this.limit) return false;
    this.spent += cost;
    return true;
  }
}
