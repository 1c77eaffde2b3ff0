/**
 * What a chaos run is judged by, read from the log afterwards: the records replayed from
 * offset 0 with the projection every process uses, and after each record (a record is
 * applied whole, so "at once" means "after the same record"):
 * - doubled: a slot (replica number, or node of a global service) with two tasks meant to
 *   run (desired RUNNING), placed on nodes and not yet ended — allowed only as a start-first
 *   update's pair: the new task replaces the old one, created under a start-first order;
 * - lost: a task of a live agent failed, orphaned or restarted, a node marked down (no
 *   agent dies in a run), a task gone from the state without a TasksRemoved;
 * - unacknowledged: a write the API answered 2xx for that no applied record holds;
 * - poison: every record the run put on the topic as poison counted as poison, and
 *   nothing else.
 * Pure: records in, findings out.
 */
import { TaskState, taskStateName } from '@shoal/contracts';
import type { ShoalEvent, Task } from '@shoal/contracts';
import { Projection, RESTARTED, updateConfigOf } from '@shoal/domain';
import type { ClusterState, RawRecord, Tally, Verdict } from '@shoal/domain';

/** A write the API acknowledged (2xx). */
export type Ack =
  | { readonly kind: 'create'; readonly id: string; readonly name: string }
  /** An update of `id` sent with `?version=from`: on the log it makes version from + 1. */
  | { readonly kind: 'update'; readonly id: string; readonly from: number }
  | { readonly kind: 'remove'; readonly id: string };

export interface LogFindings {
  /** Records replayed, and where the replay stopped (a record a newer build wrote), if it did. */
  readonly records: number;
  readonly halted?: { readonly offset: number; readonly reason: string };
  readonly hash: string;
  readonly tally: Tally;
  /** Slots that held two tasks meant to run on nodes outside a start-first window: once per set of tasks, where first seen. */
  readonly doubled: readonly string[];
  /** Start-first pairs seen: two tasks of a slot meant to run at once, as a start-first update runs them. */
  readonly startFirstPairs: number;
  /** Tasks lost or restarted, nodes marked down: each a line saying what and where. */
  readonly lost: readonly string[];
  /** Acknowledged writes no applied record holds. */
  readonly unacknowledged: readonly string[];
  /** Poison offsets the run wrote that were not counted as poison, and poison it did not write. */
  readonly poisonMismatch: readonly string[];
}

/** The slot a task belongs to: its service and replica number, or its node for a global service. */
const slotOf = (task: Task): string => `${task.serviceId}/${task.slot ?? `node:${task.nodeId}`}`;

/** Meant to run, on a node, not yet ended. */
const runsOnNode = (task: Task): boolean =>
  task.desiredState === TaskState.RUNNING && task.nodeId !== undefined && task.status.state >= TaskState.ASSIGNED && task.status.state <= TaskState.RUNNING;

/** The task ids a record's data names. */
const taskIdsOf = (event: ShoalEvent): readonly string[] => {
  switch (event.type) {
    case 'TasksCreated':
    case 'TasksAllocated':
    case 'TasksAssigned':
    case 'TaskDesiredStatesChanged':
    case 'TasksRemoved':
      return event.data.tasks.map((task) => task.id);
    case 'TaskStatusesReported':
      return event.data.statuses.map((status) => status.id);
    default:
      return [];
  }
};

const ENDED_BADLY = new Set<number>([TaskState.FAILED, TaskState.REJECTED, TaskState.ORPHANED]);

class Judge {
  readonly doubled: string[] = [];
  readonly lost: string[] = [];
  startFirstPairs = 0;
  /** The writer's time of the record being judged, for the findings' lines. */
  private at = '';
  /** Task id → created as a start-first replacement of the task it names. */
  private readonly startFirst = new Map<string, string>();
  /** Slot → the ids of the tasks ever created in it (those removed dropped). */
  private readonly slots = new Map<string, Set<string>>();
  private readonly pairsSeen = new Set<string>();
  private readonly doublesSeen = new Set<string>();
  /** Service id → versions its applied ServiceUpdated records made. */
  readonly versionsMade = new Map<string, Set<number>>();
  readonly created = new Set<string>();
  readonly removed = new Set<string>();
  /** Tasks created and tasks removed by an applied TasksRemoved. */
  private readonly tasksCreated = new Set<string>();
  private readonly tasksRemoved = new Set<string>();

  onEvent(offset: number, event: ShoalEvent, verdict: Verdict, state: ClusterState): void {
    if (verdict.status === 'rejected') return;
    this.at = event.at;
    this.note(offset, event, state);
    const touched = new Set<string>();
    for (const id of taskIdsOf(event)) {
      const task = state.tasks.get(id);
      if (task) touched.add(slotOf(task));
    }
    for (const slot of touched) this.judgeSlot(offset, slot, state);
  }

  private note(offset: number, event: ShoalEvent, state: ClusterState): void {
    switch (event.type) {
      case 'ServiceCreated':
        this.created.add(event.data.id);
        break;
      case 'ServiceUpdated': {
        const version = state.services.get(event.data.id)?.version;
        if (version !== undefined) this.versionsMade.set(event.data.id, (this.versionsMade.get(event.data.id) ?? new Set()).add(version));
        break;
      }
      case 'ServiceRemoved':
        this.removed.add(event.data.id);
        break;
      case 'TasksCreated':
        for (const { id } of event.data.tasks) {
          const task = state.tasks.get(id);
          if (!task) continue;
          this.tasksCreated.add(id);
          const slot = slotOf(task);
          this.slots.set(slot, (this.slots.get(slot) ?? new Set()).add(id));
          const service = state.services.get(task.serviceId);
          if (task.replaces && service && updateConfigOf(service).order === 'start-first') this.startFirst.set(id, task.replaces);
        }
        break;
      case 'TasksRemoved':
        for (const { id } of event.data.tasks) {
          if (state.tasks.has(id)) continue;
          this.tasksRemoved.add(id);
          for (const ids of this.slots.values()) ids.delete(id);
        }
        break;
      case 'TaskStatusesReported':
        for (const status of event.data.statuses) {
          if (ENDED_BADLY.has(status.state) && state.tasks.get(status.id)?.status.state === status.state) {
            this.lost.push(`@${offset} ${this.at} task ${status.id} on node ${event.data.nodeId} reported ${taskStateName(status.state)}: ${status.err ?? status.message ?? ''}`);
          }
        }
        break;
      case 'TaskDesiredStatesChanged':
        for (const task of event.data.tasks) if (task.reason?.startsWith(RESTARTED)) this.lost.push(`@${offset} ${this.at} task ${task.id} restarted: ${task.reason}`);
        break;
      case 'NodeStatusChanged':
        for (const node of event.data.nodes) if (node.state === 'down') this.lost.push(`@${offset} ${this.at} node ${node.id} marked down: ${node.message ?? ''}`);
        break;
      default:
        break;
    }
  }

  private judgeSlot(offset: number, slot: string, state: ClusterState): void {
    const live = [...(this.slots.get(slot) ?? [])].map((id) => state.tasks.get(id)).filter((task): task is Task => task !== undefined && runsOnNode(task));
    if (live.length < 2) return;
    const [a, b] = live as [Task, Task];
    const pair = live.length === 2 && (this.startFirst.get(b.id) === a.id || this.startFirst.get(a.id) === b.id);
    if (pair) {
      const key = `${a.id}+${b.id}`;
      if (!this.pairsSeen.has(key)) {
        this.pairsSeen.add(key);
        this.startFirstPairs++;
      }
      return;
    }
    // Once per set of tasks: the same two tasks on through later records are the same finding.
    const key = live.map((task) => task.id).join('+');
    if (this.doublesSeen.has(key)) return;
    this.doublesSeen.add(key);
    this.doubled.push(`@${offset} ${this.at} slot ${slot}: ${live.map((task) => `${task.id} on ${task.nodeId} (${taskStateName(task.status.state)})`).join(', ')}`);
  }

  /** Tasks created that left the state with no applied TasksRemoved. */
  vanished(state: ClusterState): string[] {
    return [...this.tasksCreated].filter((id) => !state.tasks.has(id) && !this.tasksRemoved.has(id)).map((id) => `task ${id} left the state without a TasksRemoved`);
  }
}

/** The acknowledged writes that no applied record holds. */
const missingAcks = (acks: readonly Ack[], judge: Judge): string[] =>
  acks.flatMap((ack) => {
    switch (ack.kind) {
      case 'create':
        return judge.created.has(ack.id) ? [] : [`service ${ack.name} (${ack.id}) created (201) but no applied ServiceCreated`];
      case 'update':
        return judge.versionsMade.get(ack.id)?.has(ack.from + 1) ? [] : [`service ${ack.id} updated from version ${ack.from} (200) but no applied ServiceUpdated made version ${ack.from + 1}`];
      case 'remove':
        return judge.removed.has(ack.id) ? [] : [`service ${ack.id} removed (200) but no applied ServiceRemoved`];
      default: {
        const exhaustive: never = ack;
        return [`unknown ack ${String(exhaustive)}`];
      }
    }
  });

/** Offsets the run wrote as poison against the records the replay counted as poison. */
const poisonMismatch = (poisonOffsets: readonly number[], projection: Projection): string[] => {
  const counted = new Set(projection.refusals.filter((r) => r.status === 'poison').map((r) => r.offset));
  const written = new Set(poisonOffsets);
  return [
    ...poisonOffsets.filter((offset) => !counted.has(offset)).map((offset) => `poison written at ${offset} not counted as poison`),
    ...[...counted].filter((offset) => !written.has(offset)).map((offset) => `record at ${offset} counted as poison, not written as poison`),
  ];
};

/** Replays `records` from offset 0 and judges them. */
export const judgeLog = (records: Iterable<RawRecord>, acks: readonly Ack[], poisonOffsets: readonly number[]): LogFindings => {
  const judge = new Judge();
  let offset = 0;
  const projection = new Projection(undefined, 0, { keepRefusals: Infinity, onEvent: (event, verdict, state) => judge.onEvent(offset, event, verdict, state) });
  let count = 0;
  for (const record of records) {
    offset = record.offset;
    projection.apply(record);
    if (projection.halted) break;
    count++;
  }
  return {
    records: count,
    ...(projection.halted ? { halted: projection.halted } : {}),
    hash: projection.hash(),
    tally: { ...projection.tally },
    doubled: judge.doubled,
    startFirstPairs: judge.startFirstPairs,
    lost: [...judge.lost, ...judge.vanished(projection.state)],
    unacknowledged: missingAcks(acks, judge),
    poisonMismatch: poisonMismatch(poisonOffsets, projection),
  };
};

