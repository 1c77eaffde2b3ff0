/**
 * Task output for the control plane, as SwarmKit's LogBroker serves it: the API subscribes
 * (Logs.SubscribeLogs), the broker asks the agents of the nodes the selected tasks ran on
 * (a LogSubscription on each node's Session stream), and forwards what they publish
 * (PublishLogs), with the task's service and node filled from this dispatcher's view. Not
 * following, the subscription ends once every node asked has sent what it has; following,
 * it lasts until the caller cancels, and a node that starts a task of a followed service,
 * or comes back with a new session, is asked too. Output never touches the event log.
 */
import { status } from '@grpc/grpc-js';
import type { ServerReadableStream, ServerWritableStream, UntypedServiceImplementation, sendUnaryData } from '@grpc/grpc-js';
import { isJoinToken } from '@shoal/domain';
import type { ClusterState, SessionTable } from '@shoal/domain';
import type {
  LogMessage,
  LogOptionsMessage,
  LogSelectorMessage,
  LogSubscriptionMessage,
  PublishLogsMessage,
  SubscribeLogsMessage,
  SubscribeLogsRequest,
} from '@shoal/protocol';
import type { NodeIdentity } from '@shoal/runtime';
import { SESSION_NOT_FOUND, quoted } from './refusal';
import type { Refusal } from './refusal';


/** One node's session as the broker uses it: where subscriptions go. */
export interface LogSessionLink {
  readonly nodeId: string;
  readonly sessionId: string;
  /** Why the session ended, once it has. */
  readonly ended: string | undefined;
  subscribeLogs(subscription: LogSubscriptionMessage): void;
}

export interface LogBrokerDeps {
  /** The view while this instance is the active dispatcher, else how to refuse. */
  readonly active: () => { readonly state: ClusterState } | Refusal;
  readonly sessions: SessionTable;
  readonly newId: () => string;
  readonly log: (line: string) => void;
  /** How long a node may stay silent before a subscription that does not follow gives up on it. */
  readonly nodeTimeoutMs?: number;
  /** Under mutual TLS: who is calling (logs are for managers only); without, the manager token alone. */
  readonly identify?: (call: Pick<SubscribeCall, 'getAuthContext'>) => NodeIdentity | string;
}

/** A subscription not following gives up on a node that sent nothing for this long. */
export const LOG_NODE_TIMEOUT_MS = 10_000;

type SubscribeCall = ServerWritableStream<SubscribeLogsRequest, SubscribeLogsMessage>;
type PublishCall = ServerReadableStream<PublishLogsMessage, object>;

interface Subscription {
  readonly id: string;
  readonly serviceIds: ReadonlySet<string>;
  readonly taskIds: ReadonlySet<string>;
  readonly options: LogOptionsMessage;
  readonly call: SubscribeCall;
  /** The nodes asked, and the session each was asked on. */
  readonly asked: Map<string, string>;
  /** Nodes asked that have not sent everything yet (not following). */
  readonly pending: Set<string>;
  timer?: NodeJS.Timeout;
  /** Nodes' streams held back until the caller takes more (resumed on 'drain', or when the subscription ends). */
  readonly paused: Set<PublishCall>;
  done: boolean;
}


const isLink = (link: unknown): link is LogSessionLink => typeof (link as Partial<LogSessionLink> | undefined)?.subscribeLogs === 'function';

export class LogBroker {
  private readonly subscriptions = new Map<string, Subscription>();
  /** The subscriptions that follow (asked again of nodes that start their tasks or come back). */
  private readonly following = new Set<Subscription>();

  constructor(private readonly deps: LogBrokerDeps) {}

  /** How many subscriptions are open. */
  get size(): number {
    return this.subscriptions.size;
  }

  /** The implementation for `server.addService(LOGS_SERVICE, …)`. */
  implementation(): UntypedServiceImplementation {
    return { subscribeLogs: (call: SubscribeCall) => this.subscribe(call) };
  }

  /** PublishLogs, the agents' side: served with the Dispatcher service. */
  publish(call: PublishCall, done: sendUnaryData<object>): void {
    let answered = false;
    const answer = (refusal?: Refusal): void => {
      if (answered) return;
      answered = true;
      if (refusal) done(refusal);
      else done(null, {});
    };
    let subscription: Subscription | undefined;
    let nodeId = '';
    let closed = false;
    call.on('data', (message: PublishLogsMessage) => {
      if (answered) return;
      if (!subscription) {
        nodeId = message.nodeId;
        const caller = this.deps.identify?.(call);
        if (typeof caller === 'string') return answer({ code: status.UNAUTHENTICATED, details: caller });
        if (caller !== undefined && caller.nodeId !== nodeId) return answer({ code: status.PERMISSION_DENIED, details: `node ${caller.nodeId}'s certificate cannot speak for node ${quoted(nodeId)}` });
        if (!this.deps.sessions.current(message.nodeId, message.sessionId)) return answer({ code: status.NOT_FOUND, details: SESSION_NOT_FOUND });
        subscription = this.subscriptions.get(message.subscriptionId);
        // Over already (the caller went away), or never asked of this node: nothing to forward.
        if (!subscription || subscription.asked.get(nodeId) !== message.sessionId) return answer();
      }
      if (subscription.done) return answer();
      this.forward(subscription, nodeId, message.messages ?? [], call);
      if (message.close) {
        closed = true;
        this.nodeDone(subscription, nodeId);
        answer();
      }
    });
    call.on('end', () => {
      if (subscription && !closed && !subscription.done) this.nodeDone(subscription, nodeId, `node ${this.nodeName(nodeId)} stopped sending before it had sent everything`);
      answer();
    });
    const gone = (): void => {
      if (subscription && !closed && !subscription.done) this.nodeDone(subscription, nodeId, `node ${this.nodeName(nodeId)} went away before it had sent everything`);
      answered = true;
    };
    call.on('cancelled', gone);
    call.on('error', gone);
  }

  /** A node's session opened: subscriptions that follow the node's tasks are asked of it again, for what comes next. */
  sessionOpened(link: LogSessionLink): void {
    if (this.following.size === 0) return;
    for (const subscription of this.following) {
      const asked = subscription.asked.get(link.nodeId);
      if (asked === undefined || asked === link.sessionId) continue;
      this.ask(subscription, link, { tail: 0 });
    }
  }

  /** Tasks of a node changed: a followed service's task on a node not asked yet brings that node in. */
  assignmentsChanged(link: LogSessionLink, taskIds: readonly string[]): void {
    if (this.following.size === 0) return;
    const view = this.deps.active();
    if (!('state' in view)) return;
    for (const subscription of this.following) {
      if (subscription.asked.has(link.nodeId)) continue;
      const wanted = taskIds.some((id) => {
        const task = view.state.tasks.get(id);
        return task !== undefined && task.nodeId === link.nodeId && this.selects(subscription, task.id, task.serviceId);
      });
      if (wanted) this.ask(subscription, link, {});
    }
  }

  /** Ends every subscription (the dispatcher stops, or is no longer the active one). */
  endAll(reason: string): void {
    for (const subscription of [...this.subscriptions.values()]) {
      this.finish(subscription, { code: status.UNAVAILABLE, details: `${reason}: ask again` });
    }
  }

  private subscribe(call: SubscribeCall): void {
    const refuse = (refusal: Refusal): void => void call.emit('error', refusal);
    const view = this.deps.active();
    if (!('state' in view)) return refuse(view);
    const request = call.request;
    const caller = this.deps.identify?.(call);
    if (typeof caller === 'string') return refuse({ code: status.UNAUTHENTICATED, details: caller });
    if (caller !== undefined && caller.role !== 'manager') {
      return refuse({ code: status.PERMISSION_DENIED, details: `logs are for the control plane: node ${caller.nodeId} holds a worker certificate` });
    }
    const manager = view.state.cluster?.tokens.manager;
    if (!manager || !isJoinToken(manager, request.managerToken ?? '')) return refuse({ code: status.UNAUTHENTICATED, details: "logs are for the control plane: present the cluster's manager join token" });
    const selector: LogSelectorMessage = request.selector ?? { serviceIds: [], taskIds: [] };
    const options: LogOptionsMessage = request.options ?? { stdout: false, stderr: false, follow: false, tail: -1, sinceMs: 0 };
    if ((selector.serviceIds ?? []).length === 0 && (selector.taskIds ?? []).length === 0) {
      return refuse({ code: status.INVALID_ARGUMENT, details: 'select at least one service or task' });
    }
    if (!options.stdout && !options.stderr) return refuse({ code: status.INVALID_ARGUMENT, details: 'choose at least one stream: stdout or stderr' });
    const subscription: Subscription = {
      id: this.deps.newId(),
      serviceIds: new Set(selector.serviceIds ?? []),
      taskIds: new Set(selector.taskIds ?? []),
      options,
      call,
      asked: new Map(),
      pending: new Set(),
      paused: new Set(),
      done: false,
    };
    this.subscriptions.set(subscription.id, subscription);
    if (options.follow) this.following.add(subscription);
    call.on('cancelled', () => this.finish(subscription));

    const warnings: string[] = [];
    for (const nodeId of this.nodesOf(view.state, subscription)) {
      const session = this.deps.sessions.get(nodeId);
      const link = session?.link;
      if (session?.registration !== 'open' || !isLink(link) || link.ended !== undefined) {
        warnings.push(`node ${this.nodeName(nodeId, view.state)} is not connected: the output of its tasks is not available`);
        continue;
      }
      this.ask(subscription, link, {});
    }
    // The first message says the subscription is taken: the caller can answer its own caller.
    call.write({ messages: [], warnings });
    if (!options.follow && subscription.pending.size === 0) this.finish(subscription);
    else this.armTimer(subscription);
  }

  /** The nodes the selected tasks are on, in order. */
  private nodesOf(state: ClusterState, subscription: Subscription): string[] {
    const nodes = new Set<string>();
    for (const id of subscription.taskIds) {
      const nodeId = state.tasks.get(id)?.nodeId;
      if (nodeId) nodes.add(nodeId);
    }
    if (subscription.serviceIds.size > 0) {
      for (const task of state.tasks.values()) if (task.nodeId && subscription.serviceIds.has(task.serviceId)) nodes.add(task.nodeId);
    }
    return [...nodes].sort();
  }

  private selects(subscription: Subscription, taskId: string, serviceId: string): boolean {
    return subscription.taskIds.has(taskId) || subscription.serviceIds.has(serviceId);
  }

  private ask(subscription: Subscription, link: LogSessionLink, override: Partial<LogOptionsMessage>): void {
    subscription.asked.set(link.nodeId, link.sessionId);
    if (!subscription.options.follow) subscription.pending.add(link.nodeId);
    link.subscribeLogs({
      id: subscription.id,
      selector: { serviceIds: [...subscription.serviceIds], taskIds: [...subscription.taskIds] },
      options: { ...subscription.options, ...override },
      close: false,
    });
  }

  /** Forwards what a node sent: only lines of selected tasks on that node, with the view's service and node. */
  private forward(subscription: Subscription, nodeId: string, messages: readonly LogMessage[], from: PublishCall): void {
    const view = this.deps.active();
    if (!('state' in view)) return;
    const forwarded: LogMessage[] = [];
    for (const message of messages) {
      const task = view.state.tasks.get(message.taskId);
      if (!task || task.nodeId !== nodeId || !this.selects(subscription, task.id, task.serviceId)) continue;
      forwarded.push({ ...message, serviceId: task.serviceId, nodeId });
    }
    this.armTimer(subscription);
    if (forwarded.length === 0) return;
    // A slow caller holds the node back rather than the dispatcher buffering its output.
    if (!subscription.call.write({ messages: forwarded, warnings: [] })) {
      from.pause();
      if (subscription.paused.size === 0) subscription.call.once('drain', () => this.resumeNodes(subscription));
      subscription.paused.add(from);
    }
  }

  /** A node has sent everything, or stopped sending (`warning`: a node that follows comes back, and is asked again then). */
  private nodeDone(subscription: Subscription, nodeId: string, warning?: string): void {
    if (warning && !subscription.options.follow) subscription.call.write({ messages: [], warnings: [warning] });
    subscription.pending.delete(nodeId);
    if (!subscription.options.follow && subscription.pending.size === 0) this.finish(subscription);
  }

  /** Not following: nodes that stay silent too long are given up on, and the stream ends without them. */
  private armTimer(subscription: Subscription): void {
    if (subscription.options.follow || subscription.done) return;
    if (subscription.timer) subscription.timer.refresh();
    else {
      subscription.timer = setTimeout(() => {
        const silent = [...subscription.pending].map((nodeId) => this.nodeName(nodeId));
        this.deps.log(`log subscription ${subscription.id}: no answer from ${silent.join(', ')}`);
        if (!subscription.call.cancelled) {
          subscription.call.write({ messages: [], warnings: silent.map((node) => `node ${node} did not answer: the output of its tasks is missing`) });
        }
        this.finish(subscription);
      }, this.deps.nodeTimeoutMs ?? LOG_NODE_TIMEOUT_MS);
    }
  }

  /** Ends the subscription: the caller's stream (unless it went away) and every node's publication. */
  private finish(subscription: Subscription, error?: Refusal): void {
    if (subscription.done) return;
    subscription.done = true;
    if (subscription.timer) clearTimeout(subscription.timer);
    // A node held back reads on, so that it hears its publication is over.
    this.resumeNodes(subscription);
    this.subscriptions.delete(subscription.id);
    this.following.delete(subscription);
    for (const [nodeId, sessionId] of subscription.asked) {
      if (!subscription.options.follow && !subscription.pending.has(nodeId)) continue;
      const link = this.deps.sessions.current(nodeId, sessionId)?.link;
      if (isLink(link) && link.ended === undefined) {
        link.subscribeLogs({ id: subscription.id, selector: { serviceIds: [], taskIds: [] }, options: subscription.options, close: true });
      }
    }
    const call = subscription.call;
    if (call.cancelled || call.writableEnded) return;
    if (error) call.emit('error', error);
    else call.end();
  }

  private resumeNodes(subscription: Subscription): void {
    const paused = [...subscription.paused];
    subscription.paused.clear();
    for (const call of paused) call.resume();
  }

  /** "hostname (id)", or the id when the view has no other name for it. */
  private nodeName(nodeId: string, state?: ClusterState): string {
    const active = state ? { state } : this.deps.active();
    const hostname = 'state' in active ? active.state.nodes.get(nodeId)?.description.hostname : undefined;
    return hostname && hostname !== nodeId ? `${hostname} (${nodeId})` : nodeId;
  }
}
