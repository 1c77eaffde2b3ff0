/** What every orchestrator decider reads in one decision; what it wants, it returns (Wants). */
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '../state';
import type { RestartMemory } from './restart-memory';
import type { PlannedView } from './wants';

export interface DecisionContext {
  readonly state: ClusterState;
  /** ms since the epoch. */
  readonly now: number;
  readonly newId: () => string;
  /** What the deciders before this one in the decision want, merged so far. */
  readonly planned: PlannedView;
  /** What the log told of restarts: each slot's history, the replacements waiting. */
  readonly restarts: RestartMemory;
  /** Every task of a service that is in the state (from the core's index, not a scan). */
  readonly tasksOf: (serviceId: string) => Task[];
  /** Every task in the same slot (or on the same node, for a global service) as `task`, itself included. */
  readonly slotmates: (task: Task) => readonly Task[];
}
