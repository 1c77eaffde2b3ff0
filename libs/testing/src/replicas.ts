/**
 * Whether a cluster's state runs the replicas asked of each service: `replicas` tasks meant
 * to run, one a slot, each on a node. What a test or a benchmark waits for once the
 * orchestrator, allocator and scheduler have done their part.
 */
import { TaskState } from '@shoal/contracts';
import type { ClusterState } from '@shoal/domain';

export const runsReplicas = (state: ClusterState, replicas: Readonly<Record<string, number>>): boolean =>
  Object.entries(replicas).every(([service, count]) => {
    const tasks = [...state.tasks.values()].filter((task) => task.serviceId === service && task.desiredState === TaskState.RUNNING);
    return tasks.length === count && new Set(tasks.map((task) => task.slot)).size === count && tasks.every((task) => task.nodeId !== undefined);
  });
