/** What every part of one orchestrator decision works with. */
import type { Task } from '@shoal/contracts';
import type { ClusterState, Node } from '../state';
import type { Plan } from './plan';
import type { RestartSupervisor } from './restart-supervisor';

export interface Decision {
  readonly state: ClusterState;
  /** ms since the epoch. */
  readonly now: number;
  readonly newId: () => string;
  readonly plan: Plan;
  readonly restarts: RestartSupervisor;
  /** Every task of a service that is in the state (from the core's index, not a scan). */
  readonly tasksOf: (serviceId: string) => Task[];
  /** Every task in the same slot (or on the same node, for a global service) as `task`, itself included. */
  readonly slotmates: (task: Task) => readonly Task[];
}

/** A node that can no longer run tasks: gone, down, or drained. */
export const invalidNode = (node: Node | undefined): boolean =>
  node === undefined || node.status.state === 'down' || node.spec.availability === 'drain';

/** Why a node can no longer run tasks, for the task's reason. */
export const whyInvalid = (nodeId: string, node: Node | undefined): string =>
  node === undefined ? `node ${nodeId} was removed` : node.status.state === 'down' ? `node ${nodeId} is down` : `node ${nodeId} is drained`;
