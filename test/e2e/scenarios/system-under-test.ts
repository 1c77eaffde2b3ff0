/**
 * The system a docker CLI scenario runs against, and the steps the scenario leaves to the
 * components other than the API. Two kinds:
 *
 * - `in-process`: the API in this process on an embedded log (apps/api's harness); the
 *   test itself writes what the orchestrator, allocator, scheduler, dispatcher and agents
 *   would, so a scenario can stop the world exactly where it wants to look.
 * - `processes`: the API, allocator, orchestrator, scheduler, reaper and dispatcher each
 *   `shoal run <component>` on the broker jest's global setup started, and simulated nodes
 *   from `shoal agent` processes; a step waits (`eventually`) until the real component has
 *   done what the in-process kind writes by hand.
 *
 * A scenario module defines its tests once against a `SystemHandle` and runs on either.
 * The nodes are the same on both: `node-1` and `spare-1` (as the agents name them: one
 * agent each, so that one can go down on its own), 4 CPUs and 8 GiB each.
 */
import type { ClusterState, Service } from '@shoal/domain';
import type { DockerCliResult } from '@shoal/testing';

export type SystemKind = 'in-process' | 'processes';

/** The nodes every system starts with, by hostname. */
export const NODE_1 = 'node-1';
export const SPARE = 'spare-1';
/** An auditor's bearer token, known to every system. */
export const AUDITOR = 'auditor-token-for-the-docker-scenarios';

export interface SystemUnderTest {
  readonly kind: SystemKind;
  /** A folder of the test's own, for the files the CLI reads (compose files, configs). */
  readonly dataDir: string;
  /** The cluster id (`docker info`'s Swarm.Cluster.ID). */
  readonly cluster: string;
  /** The admin token, for the CLI over TCP. */
  readonly adminToken: string;
  /** The real docker CLI: over the API's socket, or over TCP with `token`. */
  docker(args: readonly string[], options?: { readonly token?: string }): Promise<DockerCliResult>;
  /** The state on the log, caught up with everything appended so far. */
  state(): Promise<ClusterState>;
  /** A node's id, by hostname. */
  nodeId(hostname: string): string;
  /**
   * The service's tasks exist (the orchestrator), are allocated (the allocator), and
   * `running` of them are placed (the scheduler) and run (their node's agent); the others
   * stay pending. In process they go to `node`, and stay assigned `settleMs` before they
   * run (for a CLI that follows them); on the real components, where they go is the
   * scheduler's choice, which the scenario's constraints make `node`. Resolves with the
   * running tasks' ids and the pending ones'.
   */
  tasksRun(service: string, options: { readonly replicas: number; readonly running: number; readonly node: string; readonly settleMs?: number }): Promise<{ running: string[]; pending: string[] }>;
  /** A job's `replicas` tasks exist, are placed on `node` and complete (exit code 0). */
  tasksComplete(service: string, options: { readonly replicas: number; readonly node: string }): Promise<void>;
  /** A node with this hostname joins (its own agent). */
  addNode(hostname: string): Promise<void>;
  /** The node is down: its agent is gone and the dispatcher has said so. */
  nodeDown(hostname: string): Promise<void>;
  /** Whatever the system keeps for a node that was removed (its agent) is stopped. */
  forgetNode(hostname: string): Promise<void>;
}

export interface SystemHandle {
  readonly kind: SystemKind;
  /** The system, once `beforeAll` has started it. */
  readonly current: SystemUnderTest;
}

/** The service by name, or an error naming it. */
export const serviceNamed = (state: ClusterState, name: string): Service => {
  const found = [...state.services.values()].find((service) => service.spec.name === name);
  if (!found) throw new Error(`no service ${name}`);
  return found;
};

/** Started by `start`, stopped by `close`. */
export type RunningSystem = SystemUnderTest & { close(): Promise<void> };
