/**
 * The dispatcher as a component: the bridge between the log and the nodes' agents. The
 * transport (gRPC, in apps/dispatcher) fills the session table and wakes the runner; this
 * core decides, from the table, the view and `now`, what goes on the log:
 *
 * - NodeRegistered for each session opened (a node back from DOWN is READY again);
 * - NodeStatusChanged UNKNOWN, on taking over, for every node not DOWN it has not heard
 *   from: each has period × 6 to come back (SwarmKit's markNodesUnknown);
 * - NodeStatusChanged DOWN for nodes silent for heartbeat period × grace;
 * - TaskStatusesReported for the statuses the agents reported, batched;
 * - TaskStatusesReported ORPHANED for live tasks of nodes DOWN longer than the node-down period.
 *
 * It tells each session's link when its registration lands, when its node's tasks change
 * (the assignment streams) and when the heartbeat period asked of it changes: at once
 * when the cluster's spec changes it, and on the agent's next heartbeat when the size of
 * the fleet does, so that a fleet that grows does not set off a message to every node
 * with each node that joins.
 */
import type { NodeRole, ShoalEvent } from '@shoal/contracts';
import type { ComponentCore, Proposal } from '../component-core';
import type { ClusterState } from '../state';
import type { Verdict } from '../verdict';
import { heartbeatPeriodMs } from './heartbeat';
import { admitNode, keptTokenHash } from './join-token';
import type { TokenCheck } from './join-token';
import { NodeTasks } from './node-tasks';
import { nextOrphaning, orphanTasks } from './orphans';
import type { NewSession, Session, SessionTable } from './session-table';
import { MAX_STATUS_BATCH, batchStatuses } from './status-batch';

/** Why a node is UNKNOWN: the dispatcher took over and has not heard from it yet. */
export const UNKNOWN_MESSAGE = 'the active dispatcher changed: waiting for the node to reconnect';

export interface DispatcherCoreOptions {
  /** Told of what the dispatcher leaves out (statuses for tasks a node does not hold). */
  readonly log?: (line: string) => void;
  /** Most statuses in one decision; default 10,000. */
  readonly maxStatusBatch?: number;
  /** Tasks the index of the nodes' tasks is rebuilt by in one decision, after a takeover; default INDEX_SLICE. */
  readonly indexSlice?: number;
}

/**
 * How many tasks a decision looks at while the index of the nodes' tasks is rebuilt (on
 * taking over): at C1M's size (1,000,000 tasks) a rebuild in one go stops the process for
 * a second or more; a slice of this size costs some 7 ms (more when the index's tables
 * grow), 200 decisions for the whole.
 */
export const INDEX_SLICE = 5_000;

export class DispatcherCore implements ComponentCore {
  readonly component = 'dispatcher' as const;
  private readonly tasks = new NodeTasks();
  private adopting = false;
  /** Tasks this dispatcher has reported ORPHANED since it became active: never twice. */
  private readonly orphaned = new Set<string>();
  /** Every join token the cluster has had, with its role: nodes that joined with one may come back with it. */
  private readonly tokensSeen = new Map<string, NodeRole>();
  /** Nodes removed from the cluster (NodeRemoved): their ids may not register again. */
  private readonly removed = new Set<string>();
  /** Nodes DOWN in the view: the only ones whose tasks may become orphans. */
  private readonly down = new Set<string>();
  private activeInstanceValue?: string;
  /** Told once the index of the nodes' tasks is whole again: the assignment streams that wait for it. */
  private indexWaiters: (() => void)[] = [];

  constructor(
    readonly sessions: SessionTable,
    private readonly options: DispatcherCoreOptions = {},
  ) {}

  /** The tasks assigned to a node (ASSIGNED or later), by id: all of them once `indexed`. */
  tasksOf(nodeId: string): ReadonlySet<string> {
    return this.tasks.of(nodeId);
  }

  /**
   * Whether `tasksOf` answers for every task: not while the index is rebuilt after a
   * takeover, a slice a decision, when the cluster has more tasks than a slice.
   */
  get indexed(): boolean {
    return this.tasks.whole;
  }

  /** Calls `ready` once `tasksOf` answers for every task: at once if it does now. */
  whenIndexed(ready: () => void): void {
    if (this.tasks.whole) ready();
    else this.indexWaiters.push(ready);
  }

  /**
   * Whether an agent may open a session with this token, and as what: the cluster's
   * current tokens, or — for a node the cluster already has — one it had before rotation.
   */
  admit(state: ClusterState, token: string, nodeId: string): TokenCheck {
    return admitNode(state.cluster?.tokens, token, { known: nodeId !== '' && state.nodes.has(nodeId), former: this.tokensSeen });
  }

  /** Opens a node's session at `now` (ms since the epoch), expected to call in at the period of the moment. */
  open(state: ClusterState, session: NewSession, now: number): Session {
    const nodes = this.sessions.size + (this.sessions.get(session.nodeId) ? 0 : 1);
    return this.sessions.open(session, now, heartbeatPeriodMs(state, nodes));
  }

  /**
   * Takes a heartbeat at `now`: the period the agent is asked for, or undefined when the
   * session is not (or no longer) the node's current one. The agent is told of a new
   * period here, once its registration is on the log.
   */
  heartbeat(state: ClusterState, nodeId: string, sessionId: string, now: number): number | undefined {
    const periodMs = heartbeatPeriodMs(state, this.sessions.size);
    const session = this.sessions.heartbeat(nodeId, sessionId, now, periodMs);
    if (!session) return undefined;
    if (session.registration === 'open' && session.toldMs !== periodMs) this.tell(session, periodMs);
    return periodMs;
  }

  /** Whether the node was removed from the cluster: an agent may not register under its id again. */
  wasRemoved(nodeId: string, state: ClusterState): boolean {
    return this.removed.has(nodeId) && !state.nodes.has(nodeId);
  }

  /** The writer instance of the dispatcher's latest OwnershipTaken: the active one, as the log knows it. */
  get activeInstance(): string | undefined {
    return this.activeInstanceValue;
  }

  observe(event: ShoalEvent, verdict: Verdict, state: ClusterState): void {
    if (verdict.status === 'rejected') {
      if (event.type === 'NodeRegistered' && this.sessions.get(event.data.id)?.registration === 'proposed') {
        this.sessions.end(event.data.id, `registration refused: ${verdict.reasons.join('; ')}`);
      }
      return;
    }
    switch (event.type) {
      case 'ClusterInitialized':
      case 'JoinTokensRotated':
        if (state.cluster) {
          this.tokensSeen.set(keptTokenHash(state.cluster.tokens.worker), 'worker');
          this.tokensSeen.set(keptTokenHash(state.cluster.tokens.manager), 'manager');
        }
        this.periodChanged(state);
        break;
      case 'ClusterSpecUpdated':
        this.periodChanged(state);
        break;
      case 'OwnershipTaken':
        if (event.data.component === 'dispatcher') this.activeInstanceValue = event.by.instance;
        break;
      case 'NodeRegistered': {
        this.down.delete(event.data.id);
        const session = this.sessions.get(event.data.id);
        if (session?.registration === 'proposed') {
          session.registration = 'open';
          session.toldMs = heartbeatPeriodMs(state, this.sessions.size);
          session.link?.opened(session.toldMs);
        }
        break;
      }
      case 'NodeStatusChanged':
        for (const { id } of event.data.nodes) {
          if (state.nodes.get(id)?.status.state === 'down') this.down.add(id);
          else this.down.delete(id);
        }
        break;
      case 'NodeRemoved':
        this.down.delete(event.data.id);
        this.removed.add(event.data.id);
        this.sessions.end(event.data.id, 'the node was removed from the cluster', true);
        break;
      case 'TasksAssigned':
      case 'TaskDesiredStatesChanged':
      case 'TasksRemoved':
        this.touch(state, event.data.tasks);
        break;
      case 'TasksCreated':
        // A new task is NEW: no node holds it before it is assigned.
        break;
      case 'TaskStatusesReported':
        // The agent made these changes: its assignments stay as they are. A status only
        // moves an assigned task forward on its node, so no node's holding changes either.
        break;
      default:
        break;
    }
  }

  reconcileAll(state: ClusterState): void {
    // The first slice now: a cluster of fewer tasks has its index whole at once.
    this.tasks.restart(state);
    this.index(state);
    if (state.cluster) {
      this.tokensSeen.set(keptTokenHash(state.cluster.tokens.worker), 'worker');
      this.tokensSeen.set(keptTokenHash(state.cluster.tokens.manager), 'manager');
    }
    this.adopting = true;
    this.orphaned.clear();
    this.down.clear();
    for (const node of state.nodes.values()) if (node.status.state === 'down') this.down.add(node.id);
  }

  /**
   * Nothing is decided until the index of the nodes' tasks is whole again after a
   * takeover: each decision until then rebuilds a slice of it (wakeAt asks for the next at
   * once), so that the first decision is the one a rebuild in one go would have made.
   */
  decide(state: ClusterState, now: Date): readonly Proposal[] {
    if (!this.index(state)) return [];
    const at = now.getTime();
    const unknown = this.adopting ? this.adopt(state, at) : [];
    this.adopting = false;
    return [...this.registrations(), ...unknown, ...this.expired(state, at), ...this.statuses(state), ...this.orphans(state, now)];
  }

  /**
   * Takes the fleet on at `at`: on becoming active, or with the log back after appends
   * failed. Nothing was judged while this dispatcher could not write, so the clock of
   * every open session starts again; every node not DOWN that has no session is UNKNOWN
   * (its agent may be on its way from the dispatcher that went) and has the unknown grace
   * to come back, at the period it was asked for (as the previous dispatcher reckoned it).
   */
  private adopt(state: ClusterState, at: number): Proposal[] {
    const up = [...state.nodes.values()].filter((node) => node.status.state !== 'down');
    const periodMs = heartbeatPeriodMs(state, up.length);
    this.sessions.resume(at, periodMs);
    const unknown: { id: string; state: 'unknown'; message: string }[] = [];
    for (const node of up) {
      if (this.sessions.get(node.id)) continue;
      this.sessions.await(node.id, at, periodMs);
      if (node.status.state !== 'unknown') unknown.push({ id: node.id, state: 'unknown', message: UNKNOWN_MESSAGE });
    }
    return unknown.length === 0 ? [] : [{ type: 'NodeStatusChanged', data: { nodes: unknown } }];
  }

  wakeAt(state: ClusterState): number | undefined {
    if (!this.tasks.whole) return 0;
    const times = [this.sessions.nextExpiry, nextOrphaning(state, (id) => this.unattended(id), this.down)];
    const defined = times.filter((t): t is number => t !== undefined);
    return defined.length === 0 ? undefined : Math.min(...defined);
  }

  /** Goes on with the index's rebuild, a slice: whether it is whole (those waiting for it are told then). */
  private index(state: ClusterState): boolean {
    if (this.tasks.whole) return true;
    if (!this.tasks.rebuildSome(state, this.options.indexSlice ?? INDEX_SLICE)) return false;
    const waiters = this.indexWaiters;
    this.indexWaiters = [];
    for (const ready of waiters) ready();
    return true;
  }

  private registrations(): Proposal[] {
    return this.sessions.takeUnregistered().map(({ nodeId: id, description, role, addr }) => ({
      type: 'NodeRegistered',
      data: { id, description, role, ...(addr === undefined ? {} : { addr }) },
    }));
  }

  private expired(state: ClusterState, at: number): Proposal[] {
    const down: { id: string; state: 'down'; message: string }[] = [];
    for (const nodeId of this.sessions.expiredAt(at)) {
      this.sessions.end(nodeId, 'heartbeat failure: the session expired');
      const node = state.nodes.get(nodeId);
      if (node && node.status.state !== 'down') {
        down.push({ id: nodeId, state: 'down', message: node.status.state === 'unknown' ? 'heartbeat failure for node in "unknown" state' : 'heartbeat failure' });
      }
    }
    return down.length === 0 ? [] : [{ type: 'NodeStatusChanged', data: { nodes: down } }];
  }

  private statuses(state: ClusterState): readonly Proposal[] {
    if (this.sessions.pendingStatuses === 0) return [];
    const batch = batchStatuses(state, this.sessions.takeStatuses(this.options.maxStatusBatch ?? MAX_STATUS_BATCH));
    for (const line of batch.ignored) this.options.log?.(line);
    return batch.proposals;
  }

  private orphans(state: ClusterState, now: Date): Proposal[] {
    const proposals = orphanTasks(state, (id) => this.unattended(id), now, this.down);
    for (const proposal of proposals) {
      if (proposal.type === 'TaskStatusesReported') for (const { id } of proposal.data.statuses) this.orphaned.add(id);
    }
    return proposals;
  }

  /**
   * A node's tasks not yet reported ORPHANED, unless the node has a session again (it
   * will report on them itself). A report evolve refused is not made again, so a refusal
   * can never turn into a loop of writes.
   */
  private *unattended(nodeId: string): Iterable<string> {
    if (this.sessions.get(nodeId)) return;
    for (const id of this.tasks.of(nodeId)) if (!this.orphaned.has(id)) yield id;
  }

  private touch(state: ClusterState, items: readonly { readonly id: string }[]): void {
    const byNode = new Map<string, string[]>();
    for (const item of items) {
      for (const node of this.tasks.touch(state, item.id)) {
        const ids = byNode.get(node);
        if (ids) ids.push(item.id);
        else byNode.set(node, [item.id]);
      }
    }
    for (const [nodeId, ids] of byNode) {
      const session = this.sessions.get(nodeId);
      if (session?.registration === 'open') session.link?.assignmentsChanged(ids);
    }
  }

  /** The cluster's spec may have changed the period: every open session whose period changed hears it now. */
  private periodChanged(state: ClusterState): void {
    const periodMs = heartbeatPeriodMs(state, this.sessions.size);
    for (const session of this.sessions.all()) if (session.registration === 'open' && session.toldMs !== periodMs) this.tell(session, periodMs);
  }

  private tell(session: Session, periodMs: number): void {
    session.toldMs = periodMs;
    session.link?.periodChanged(periodMs);
  }
}
