/**
 * The dispatcher's session table: which nodes have an agent connected now, when each was
 * last heard from and when it expires if it stays silent, the heartbeat period it was
 * told, and the task statuses they reported that are not on the log yet. It
 * lives in memory only — heartbeats are not events — and is the input the dispatcher's
 * decisions read, with `now`. No clock, no I/O: the caller passes the time.
 */
import type { NodeDescription, NodeRole, TaskStatusReport } from '@shoal/contracts';
import { expiresAt, unknownExpiresAt } from './heartbeat';

/** How the session's transport hears what the dispatcher decided about it. */
export interface SessionLink {
  /** The registration is on the log: the session is open; the agent calls in every `periodMs`. */
  opened(periodMs: number): void;
  /**
   * The session is over; the agent must open a new one — unless `final`: the node was
   * removed from the cluster and may not come back under its id.
   */
  closed(reason: string, final?: boolean): void;
  /** These tasks of the node (held now, or until now) may have changed: look at them again. */
  assignmentsChanged(taskIds: readonly string[]): void;
  /** The heartbeat period asked of this agent changed. */
  periodChanged(periodMs: number): void;
}

/** pending: waiting to be proposed; proposed: NodeRegistered appended; open: applied. */
export type Registration = 'pending' | 'proposed' | 'open';

export interface NewSession {
  readonly nodeId: string;
  readonly sessionId: string;
  readonly role: NodeRole;
  readonly description: NodeDescription;
  /** Where the agent connected from. */
  readonly addr?: string;
  readonly link?: SessionLink;
}

export interface Session extends NewSession {
  registration: Registration;
  /** The last sign of life, in ms since the epoch: the session's start or its last heartbeat. */
  lastSeen: number;
  /** When the node is DOWN if it stays silent (ms since the epoch); it only ever moves later. */
  expires: number;
  /** The heartbeat period the agent was last told, once its registration is on the log. */
  toldMs?: number;
}

export interface PendingStatus {
  readonly nodeId: string;
  readonly report: TaskStatusReport;
}

export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  /** Nodes not DOWN on the log that this dispatcher has not heard from since it became active (UNKNOWN): when each expires. */
  private readonly awaited = new Map<string, number>();
  /** Sessions whose registration is still to be proposed. */
  private readonly unregistered = new Set<Session>();
  /** No expected node expires before this (a lower bound, made exact by each scan). */
  private earliest?: number;
  /** Queued statuses: those from `taken` on are still to be batched (a queue, so that a batch costs what it takes, not what waits). */
  private pending: PendingStatus[] = [];
  private taken = 0;

  get size(): number {
    return this.sessions.size;
  }

  /** Opens a node's session at `now`, to be heard from every `periodMs`; one the node had before is closed. */
  open(session: NewSession, now: number, periodMs: number): Session {
    this.end(session.nodeId, 'replaced by a new session of the same node');
    this.awaited.delete(session.nodeId);
    const opened: Session = { ...session, registration: 'pending', lastSeen: now, expires: expiresAt(now, periodMs) };
    this.sessions.set(session.nodeId, opened);
    this.unregistered.add(opened);
    this.expiring(opened.expires);
    return opened;
  }

  get(nodeId: string): Session | undefined {
    return this.sessions.get(nodeId);
  }

  /** The node's session, if `sessionId` is the current one. */
  current(nodeId: string, sessionId: string): Session | undefined {
    const session = this.sessions.get(nodeId);
    return session && session.sessionId === sessionId ? session : undefined;
  }

  /**
   * Records a heartbeat at `now` from an agent asked to call in every `periodMs`: the
   * session, or undefined when it is not (or no longer) the node's current one.
   */
  heartbeat(nodeId: string, sessionId: string, now: number, periodMs: number): Session | undefined {
    const session = this.current(nodeId, sessionId);
    if (!session) return undefined;
    session.lastSeen = Math.max(session.lastSeen, now);
    session.expires = Math.max(session.expires, expiresAt(now, periodMs));
    return session;
  }

  /** Queues statuses a node reported, for the next batch. */
  report(nodeId: string, reports: readonly TaskStatusReport[]): void {
    for (const report of reports) this.pending.push({ nodeId, report });
  }

  /** Nodes expected to connect (not DOWN on the log when the dispatcher became active) that have no session yet. */
  get awaiting(): number {
    return this.awaited.size;
  }

  get pendingStatuses(): number {
    return this.pending.length - this.taken;
  }

  /**
   * Takes at most `max` queued statuses, oldest first: at the cost of those taken, however
   * many wait behind them (the statuses already taken are let go once they are half the
   * queue).
   */
  takeStatuses(max: number): PendingStatus[] {
    const end = Math.min(this.pending.length, this.taken + Math.max(0, max));
    const taken = this.pending.slice(this.taken, end);
    this.taken = end;
    if (this.taken === this.pending.length) {
      this.pending = [];
      this.taken = 0;
    } else if (this.taken * 2 >= this.pending.length) {
      this.pending = this.pending.slice(this.taken);
      this.taken = 0;
    }
    return taken;
  }

  /** Ends the node's session (if any) and stops expecting it. */
  end(nodeId: string, reason: string, final = false): Session | undefined {
    this.awaited.delete(nodeId);
    const session = this.sessions.get(nodeId);
    if (!session) return undefined;
    this.sessions.delete(nodeId);
    this.unregistered.delete(session);
    session.link?.closed(reason, final);
    return session;
  }

  /** Ends every session and forgets every queued status (the dispatcher stops serving). */
  clear(reason: string): void {
    for (const nodeId of [...this.sessions.keys()]) this.end(nodeId, reason);
    this.awaited.clear();
    this.unregistered.clear();
    this.earliest = undefined;
    this.pending = [];
    this.taken = 0;
  }

  /**
   * Expects a node with no session to come back, UNKNOWN since `now`: it has the unknown
   * grace at a period of `periodMs` (a node already expected keeps the later of the two).
   */
  await(nodeId: string, now: number, periodMs: number): void {
    if (this.sessions.has(nodeId)) return;
    const expires = Math.max(this.awaited.get(nodeId) ?? 0, unknownExpiresAt(now, periodMs));
    this.awaited.set(nodeId, expires);
    this.expiring(expires);
  }

  /** Whether the node is expected to come back (UNKNOWN) and has no session yet. */
  awaits(nodeId: string): boolean {
    return this.awaited.has(nodeId);
  }

  /**
   * Restarts the clock of every open session at `now`: none expires before the grace from
   * then, at `periodMs` or the longer period it was told. The dispatcher could not act on the log until now (it was not
   * active, or the log was away), so a silence before it counts for nothing.
   */
  resume(now: number, periodMs: number): void {
    for (const session of this.sessions.values()) session.expires = Math.max(session.expires, expiresAt(now, Math.max(periodMs, session.toldMs ?? 0)));
  }

  /** A time before which no expected node expires; undefined when none is expected. */
  get nextExpiry(): number | undefined {
    return this.earliest;
  }

  /**
   * The nodes that expire at or before `now`. Cheap when none can: the table scans only
   * once its earliest expiry has come.
   */
  expiredAt(now: number): string[] {
    if (this.earliest === undefined || this.earliest > now) return [];
    const expired: string[] = [];
    let earliest: number | undefined;
    this.forEachExpected((nodeId, expires) => {
      if (expires <= now) expired.push(nodeId);
      else if (earliest === undefined || expires < earliest) earliest = expires;
    });
    this.earliest = earliest;
    return expired;
  }

  private expiring(at: number): void {
    if (this.earliest === undefined || at < this.earliest) this.earliest = at;
  }

  /** Takes the sessions whose registration is still to be proposed, marking them proposed. */
  takeUnregistered(): Session[] {
    const sessions = [...this.unregistered];
    this.unregistered.clear();
    for (const session of sessions) session.registration = 'proposed';
    return sessions;
  }

  /** Calls `visit` for every node the dispatcher expects to hear from, with when it expires. */
  forEachExpected(visit: (nodeId: string, expires: number) => void): void {
    for (const session of this.sessions.values()) visit(session.nodeId, session.expires);
    for (const [nodeId, expires] of this.awaited) visit(nodeId, expires);
  }

  /** Sessions in log order of nothing in particular: insertion order. */
  all(): IterableIterator<Session> {
    return this.sessions.values();
  }
}
