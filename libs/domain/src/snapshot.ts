/**
 * Snapshots as plain data: what a view saves ({offset, hash, state}) and restores from
 * before replaying the tail. Collections keep their order, so a restored state iterates
 * exactly as the replayed one did.
 *
 * The state as data (StateData, format 1) has every task whole: what the audit shows. A
 * snapshot writes it with each task's spec once (format 2): the tasks of a service share
 * its spec in the state, so a hundred thousand tasks carry a dozen specs, and written
 * whole they were half of the file. A restored state shares them again. Snapshots of
 * either format restore; the hash is the state's, whichever the format.
 */
import { taskData } from '@shoal/contracts';
import type { Component, Task, TaskData, TaskSpec } from '@shoal/contracts';
import type { Cluster, ClusterState, Config, Network, Node, Secret, Service } from './state';
import { emptyState } from './state';
import { rebuildReservations } from './reservations';
import { storedStatus, storedTask } from './stored-task';
import { hashCapturedInSteps, stateHash } from './state-hash';
import { captureInSteps } from './snapshot-capture';
import type { CapturedState } from './snapshot-capture';

/** StateData's format: every task whole. */
export const STATE_DATA_FORMAT = 1;
/** What snapshots are written in: each task spec once, in `specs`. */
export const SNAPSHOT_FORMAT = 2;

export interface StateData {
  readonly format: number;
  readonly cluster?: Cluster;
  readonly services: readonly Service[];
  /** Each task as the state is written out (TaskData: the scheduler's reason as `placement`). */
  readonly tasks: readonly TaskData[];
  readonly nodes: readonly Node[];
  readonly networks: readonly Network[];
  /** Absent when there are none (and in what was written before configs existed). */
  readonly configs?: readonly Config[];
  /** Absent when there are none (and in what was written before secrets existed). */
  readonly secrets?: readonly Secret[];
  readonly terms: readonly (readonly [Component, number])[];
  readonly writers: readonly (readonly [string, number])[];
}

/** A task in a snapshot: its spec as an index into the snapshot's `specs`. */
export type TaskWithSpecIndex = Omit<TaskData, 'spec'> & { readonly spec: number };

/** The state as a snapshot writes it (format 2): as StateData, each task spec once. */
export interface SnapshotStateData extends Omit<StateData, 'format' | 'tasks'> {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly specs: readonly TaskSpec[];
  readonly tasks: readonly TaskWithSpecIndex[];
}

export interface Snapshot {
  /** The next offset to read: every record before it is in `state`. */
  readonly offset: number;
  readonly hash: string;
  /** Format 2 as written now; format 1 (StateData) from snapshots written before. */
  readonly state: SnapshotStateData | StateData;
}

/** Map entries copied per step of a capture, against entities hashed: copying a reference (and noting it copied) is ~1/20 of hashing an entity. */
const CAPTURED_PER_HASHED = 16;

/** Everything but the tasks, as both formats write it. */
const withoutTasks = (state: ClusterState) => ({
  ...(state.cluster ? { cluster: state.cluster } : {}),
  services: [...state.services.values()],
  nodes: [...state.nodes.values()],
  networks: [...state.networks.values()],
  ...(state.configs.size > 0 ? { configs: [...state.configs.values()] } : {}),
  ...(state.secrets.size > 0 ? { secrets: [...state.secrets.values()] } : {}),
  terms: [...state.terms.entries()],
  writers: [...state.writers.entries()],
});

export const toStateData = (state: ClusterState): StateData => ({ format: STATE_DATA_FORMAT, ...withoutTasks(state), tasks: [...state.tasks.values()].map(taskData) });

/** Tasks turned into what a snapshot writes, each spec object they hold once, by identity (the tasks of a service share one). */
class SnapshotTasks {
  readonly specs: TaskSpec[] = [];
  readonly tasks: TaskWithSpecIndex[] = [];
  private readonly indexOf = new Map<TaskSpec, number>();

  add(task: Task): void {
    let index = this.indexOf.get(task.spec);
    if (index === undefined) {
      index = this.specs.length;
      this.specs.push(task.spec);
      this.indexOf.set(task.spec, index);
    }
    this.tasks.push({ ...taskData(task), spec: index });
  }
}

/** The state as a snapshot writes it: each spec object the tasks hold once, by identity (the tasks of a service share one). */
export const toSnapshotData = (state: ClusterState): SnapshotStateData => {
  const out = new SnapshotTasks();
  for (const task of state.tasks.values()) out.add(task);
  return { format: SNAPSHOT_FORMAT, ...withoutTasks(state), specs: out.specs, tasks: out.tasks };
};

/** Tasks made into a snapshot's per step, against entities hashed: one costs about half of hashing one. */
const WRITTEN_PER_HASHED = 2;

/** toSnapshotData of a captured state (captureInSteps), `perStep` tasks a step. */
function* snapshotDataInSteps(captured: CapturedState, perStep: number): Generator<void, SnapshotStateData> {
  const out = new SnapshotTasks();
  let sinceStep = 0;
  for (const [, task] of captured.tasks) {
    out.add(task);
    if (++sinceStep >= perStep) {
      sinceStep = 0;
      yield;
    }
  }
  const values = <V>(entries: readonly (readonly [string, V])[]): V[] => entries.map(([, value]) => value);
  return {
    format: SNAPSHOT_FORMAT,
    ...(captured.cluster ? { cluster: captured.cluster } : {}),
    services: values(captured.services),
    nodes: values(captured.nodes),
    networks: values(captured.networks),
    ...(captured.configs.length > 0 ? { configs: values(captured.configs) } : {}),
    ...(captured.secrets.length > 0 ? { secrets: values(captured.secrets) } : {}),
    terms: [...captured.terms] as [Component, number][],
    writers: [...captured.writers],
    specs: out.specs,
    tasks: out.tasks,
  };
}

const isSnapshotData = (data: SnapshotStateData | StateData): data is SnapshotStateData => data.format === SNAPSHOT_FORMAT;

export const fromStateData = (data: SnapshotStateData | StateData): ClusterState => {
  if (data.format !== STATE_DATA_FORMAT && data.format !== SNAPSHOT_FORMAT) throw new Error(`unsupported snapshot format ${String(data.format)}`);
  const state = emptyState();
  if (data.cluster) state.cluster = data.cluster;
  for (const service of data.services) state.services.set(service.id, service);
  const specs = isSnapshotData(data) ? data.specs : undefined;
  for (const task of data.tasks) {
    // Every field copied as it is, the renamed ones from their written names; in format 2,
    // the spec's index then replaced by the spec it names.
    const stored = storedTask(task as Task);
    stored.assignmentReason = task.placement;
    if (specs) {
      const spec = specs[task.spec as number];
      if (spec === undefined) throw new Error(`task ${task.id}: spec ${String(task.spec)} is not in the snapshot's ${specs.length} specs`);
      stored.spec = spec;
    }
    stored.status = storedStatus(task.status);
    state.tasks.set(task.id, stored);
  }
  for (const node of data.nodes) state.nodes.set(node.id, node);
  for (const network of data.networks) state.networks.set(network.id, network);
  for (const config of data.configs ?? []) state.configs.set(config.id, config);
  for (const secret of data.secrets ?? []) state.secrets.set(secret.id, secret);
  for (const [component, term] of data.terms) state.terms.set(component, term);
  for (const [writer, seq] of data.writers) state.writers.set(writer, seq);
  rebuildReservations(state);
  return state;
};

export const takeSnapshot = (state: ClusterState, offset: number): Snapshot => ({
  offset,
  hash: stateHash(state),
  state: toSnapshotData(state),
});

/**
 * takeSnapshot worked out in steps, for a process that must not stop for the seconds a
 * large state takes: the state is as it is at this call, and each `next()` does a bounded
 * slice of the work while the caller goes on applying records in between: the state
 * captured (captureInSteps: references copied, `entitiesPerStep × CAPTURED_PER_HASHED` a
 * step, the maps watched so that what changes after this call is read as it was), then
 * the tasks made into what the snapshot writes, the entries sorted and hashed. The
 * generator returns the snapshot, the same as takeSnapshot(state, offset) at this call.
 * Run it to its end, or end it with `return()`.
 */
export const snapshotInSteps = (state: ClusterState, offset: number, entitiesPerStep: number): Generator<void, Snapshot> => {
  const capturing = captureInSteps(state, entitiesPerStep * CAPTURED_PER_HASHED);
  const steps = (function* (): Generator<void, Snapshot> {
    let captured: CapturedState;
    try {
      yield; // begun, so that return() ends the capture even before the first step
      captured = yield* capturing;
    } finally {
      capturing.return(undefined as never);
    }
    const data = yield* snapshotDataInSteps(captured, entitiesPerStep * WRITTEN_PER_HASHED);
    const hash = yield* hashCapturedInSteps(captured, entitiesPerStep);
    return { offset, hash, state: data };
  })();
  steps.next();
  return steps;
};

export type Restored = { readonly ok: true; readonly state: ClusterState } | { readonly ok: false; readonly reason: string };

/** Snapshots read from bytes that matched the SHA-256 written with them. */
const intact = new WeakSet<Snapshot>();

/**
 * Marks `snapshot` as read from bytes that matched the SHA-256 of the bytes its store wrote
 * (a store that writes one and checks it says so, and only of the object it built): what
 * was read is what was saved, and what was saved was hashed from the same captured state
 * it was written from. A copy of it is not marked.
 */
export const readIntact = (snapshot: Snapshot): Snapshot => {
  intact.add(snapshot);
  return snapshot;
};

/**
 * How a restore knows the snapshot's state is the one its hash names: `state hash`, the
 * state hashed again (what an audit asks); `file digest`, the store's check of the file's
 * bytes when it made one (readIntact), else the state hashed again.
 */
export type RestoreCheck = 'state hash' | 'file digest';

/**
 * Restores a snapshot and checks it (RestoreCheck, default its hash against its state): a
 * corrupt snapshot is refused, never used.
 */
export const restoreSnapshot = (snapshot: Snapshot, check: RestoreCheck = 'state hash'): Restored => {
  const format = snapshot.state?.format;
  if (format !== STATE_DATA_FORMAT && format !== SNAPSHOT_FORMAT) {
    return { ok: false, reason: `unsupported snapshot format ${String(format)}` };
  }
  let state: ClusterState;
  try {
    state = fromStateData(snapshot.state);
  } catch (error) {
    return { ok: false, reason: `unreadable snapshot: ${(error as Error).message}` };
  }
  if (check === 'file digest' && intact.has(snapshot)) return { ok: true, state };
  const hash = stateHash(state);
  if (hash !== snapshot.hash) return { ok: false, reason: `snapshot hash mismatch: recorded ${snapshot.hash}, computed ${hash}` };
  return { ok: true, state };
};
