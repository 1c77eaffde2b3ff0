/**
 * Snapshots as plain data: what a view saves ({offset, hash, state}) and restores from
 * before replaying the tail. Collections keep their order, so a restored state iterates
 * exactly as the replayed one did.
 */
import type { Component, Task } from '@shoal/contracts';
import type { Cluster, ClusterState, Network, Node, Service } from './state';
import { emptyState } from './state';
import { rebuildReservations } from './reservations';
import { storedStatus, storedTask } from './stored-task';
import { hashInSteps, stateHash } from './state-hash';

export const SNAPSHOT_FORMAT = 1;

export interface StateData {
  readonly format: number;
  readonly cluster?: Cluster;
  readonly services: readonly Service[];
  readonly tasks: readonly Task[];
  readonly nodes: readonly Node[];
  readonly networks: readonly Network[];
  readonly terms: readonly (readonly [Component, number])[];
  readonly writers: readonly (readonly [string, number])[];
}

export interface Snapshot {
  /** The next offset to read: every record before it is in `state`. */
  readonly offset: number;
  readonly hash: string;
  readonly state: StateData;
}

export const toStateData = (state: ClusterState): StateData => ({
  format: SNAPSHOT_FORMAT,
  ...(state.cluster ? { cluster: state.cluster } : {}),
  services: [...state.services.values()],
  tasks: [...state.tasks.values()],
  nodes: [...state.nodes.values()],
  networks: [...state.networks.values()],
  terms: [...state.terms.entries()],
  writers: [...state.writers.entries()],
});

export const fromStateData = (data: StateData): ClusterState => {
  if (data.format !== SNAPSHOT_FORMAT) throw new Error(`unsupported snapshot format ${data.format}`);
  const state = emptyState();
  if (data.cluster) state.cluster = data.cluster;
  for (const service of data.services) state.services.set(service.id, service);
  for (const task of data.tasks) {
    const stored = storedTask(task);
    stored.status = storedStatus(task.status);
    state.tasks.set(task.id, stored);
  }
  for (const node of data.nodes) state.nodes.set(node.id, node);
  for (const network of data.networks) state.networks.set(network.id, network);
  for (const [component, term] of data.terms) state.terms.set(component, term);
  for (const [writer, seq] of data.writers) state.writers.set(writer, seq);
  rebuildReservations(state);
  return state;
};

export const takeSnapshot = (state: ClusterState, offset: number): Snapshot => ({
  offset,
  hash: stateHash(state),
  state: toStateData(state),
});

/**
 * takeSnapshot worked out in steps, for a process that must not stop for the second or so
 * a large state takes to hash: the state is captured at this call (its entities are never
 * changed in place, only replaced), and each `next()` hashes `entitiesPerStep` more of it.
 * The generator returns the snapshot, the same as takeSnapshot(state, offset) at this call.
 */
export const snapshotInSteps = (state: ClusterState, offset: number, entitiesPerStep: number): Generator<void, Snapshot> => {
  const data = toStateData(state);
  const hashing = hashInSteps(state, entitiesPerStep);
  return (function* () {
    const hash = yield* hashing;
    return { offset, hash, state: data };
  })();
};

export type Restored = { readonly ok: true; readonly state: ClusterState } | { readonly ok: false; readonly reason: string };

/** Restores a snapshot and checks it against its own hash: a corrupt snapshot is refused, never used. */
export const restoreSnapshot = (snapshot: Snapshot): Restored => {
  if (snapshot.state?.format !== SNAPSHOT_FORMAT) {
    return { ok: false, reason: `unsupported snapshot format ${String(snapshot.state?.format)}` };
  }
  const state = fromStateData(snapshot.state);
  const hash = stateHash(state);
  if (hash !== snapshot.hash) return { ok: false, reason: `snapshot hash mismatch: recorded ${snapshot.hash}, computed ${hash}` };
  return { ok: true, state };
};
