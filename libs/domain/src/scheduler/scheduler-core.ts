/**
 * The scheduler as a component: it keeps its own view from the events it observes, and
 * on each decision places the queued PENDING tasks — tasks whose node was chosen at
 * creation (global services) are checked against the filters on that node; the others
 * are batched by service and spec version, and each batch is spread over one decision
 * tree. It proposes TasksAssigned, each item with why it landed there, and
 * TasksUnschedulable for tasks no node would take, which wait for a node or capacity to
 * change before they are tried again. A decision takes the queue in the order it came, up
 * to a budget of work (tick-budget.ts); what is left is decided by the next ticks.
 */
import type { ShoalEvent } from '@shoal/contracts';
import type { ComponentCore, Proposal } from '../component-core';
import type { ClusterState } from '../state';
import type { Verdict } from '../verdict';
import { continues } from './continued-batch';
import type { ContinuedBatch } from './continued-batch';
import { buildLeaf, buildTree } from './decision-tree';
import { Candidates } from './candidates';
import { CountedMinHeap } from './counted-heap';
import type { DecisionTree } from './decision-tree';
import type { Compare } from './node-heap';
import { MAX_FAILURES } from './node-info';
import type { NodeInfo } from './node-info';
import { Pipeline, noSuitableNode } from './pipeline';
import { spreadOver } from './spread';
import { SchedulerView } from './scheduler-view';
import type { Tracked } from './scheduler-view';
import { TASK_COST, TICK_BUDGET, TickBudget } from './tick-budget';

/** Most items in one record. */
const MAX_BATCH = 5_000;

type Assignment = { readonly id: string; readonly nodeId: string; readonly why: string };
type Refusal = { readonly id: string; readonly explain: string };

/** What one decision assigns and finds unschedulable, before it becomes proposals. */
interface SchedulingOutcome {
  readonly assigned: Assignment[];
  readonly unschedulable: Refusal[];
}

/** One batch being taken from the queue: the tasks of one service@specVersion. */
interface Batch {
  readonly serviceId: string;
  readonly specVersion: number;
  readonly key: string;
  readonly tasks: Tracked[];
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** What a batch knows of its nodes when it begins, which makes its order cheaper to compute. */
export interface OrderHints {
  /** The service has no task on any node: its count is 0 everywhere (true only before the batch's first placement). */
  readonly unplaced?: boolean;
  /** No node has a failure: none can be faulty. */
  readonly faultless?: boolean;
  /** The nodes' ranks are their order by id (NodeSet.ranked). */
  readonly ranked?: boolean;
}

/**
 * Best node first for a batch of `serviceId`@`specVersion`: not faulty, fewest of the
 * service, fewest in all, then by id. `hints` skip what cannot differ, for the same order.
 */
export const nodeOrder = (serviceId: string, specVersion: number, now: number, hints: OrderHints = {}): Compare<NodeInfo> => {
  const { unplaced = false, faultless = false, ranked = false } = hints;
  const tie = byId(ranked);
  return (a, b) => {
    if (!faultless && (a.failing || b.failing)) {
      const fa = a.recentFailures(serviceId, specVersion, now);
      const fb = b.recentFailures(serviceId, specVersion, now);
      if ((fa >= MAX_FAILURES || fb >= MAX_FAILURES) && fa !== fb) return fa - fb;
    }
    return (unplaced ? 0 : a.tasksOf(serviceId) - b.tasksOf(serviceId)) || a.activeTasks - b.activeTasks || tie(a, b);
  };
};

const byRank: Compare<NodeInfo> = (a, b) => a.rank - b.rank;
const byIdString: Compare<NodeInfo> = (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
/** The order of ids, by rank when the nodes are `ranked`. */
const byId = (ranked: boolean): Compare<NodeInfo> => (ranked ? byRank : byIdString);

export interface SchedulerOptions {
  /** The work one decision may do, in nodes looked at (tick-budget.ts); TICK_BUDGET unless told. */
  readonly tickBudget?: number;
}

export class SchedulerCore implements ComponentCore {
  readonly component = 'scheduler' as const;
  readonly idleWhileStandby = true;
  readonly view = new SchedulerView();
  private readonly pipeline = new Pipeline();
  private readonly candidates = new Candidates();
  private readonly tickBudget: number;
  /** The tree of the batch the last decision's budget cut short, for the next one. */
  private continued?: ContinuedBatch;

  constructor(options: SchedulerOptions = {}) {
    this.tickBudget = options.tickBudget ?? TICK_BUDGET;
  }

  observe(event: ShoalEvent, _verdict: Verdict, state: ClusterState): void {
    // Every verdict is looked at: the state says what became of each item, and a refused
    // assignment of ours must give its node back.
    switch (event.type) {
      case 'NodeRegistered':
      case 'NodeSpecUpdated':
      case 'NodeRemoved':
        this.view.syncNode(state, event.data.id);
        break;
      case 'NodeStatusChanged':
        for (const item of event.data.nodes) this.view.syncNode(state, item.id);
        break;
      case 'TasksCreated':
      case 'TasksAllocated':
      case 'TasksAssigned':
      case 'TasksUnschedulable':
      case 'TaskDesiredStatesChanged':
      case 'TasksRemoved':
        for (const item of event.data.tasks) this.view.syncTask(state, item.id);
        break;
      case 'TaskStatusesReported': {
        const at = Date.parse(event.at);
        for (const item of event.data.statuses) this.view.syncTask(state, item.id, Number.isNaN(at) ? undefined : at);
        break;
      }
      default:
        break;
    }
  }

  reconcileAll(state: ClusterState): void {
    this.view.rebuild(state);
  }

  reconcileInSteps(state: ClusterState): Iterable<void> {
    return this.view.rebuildInSteps(state);
  }

  decide(state: ClusterState, now: Date): readonly Proposal[] {
    this.settleUnobserved(state);
    if (this.view.capacityChanged) this.view.retryWaiting();
    if (this.view.queue.size === 0) return [];
    const outcome: SchedulingOutcome = { assigned: [], unschedulable: [] };
    const at = now.getTime();
    const { preassigned, groups, cutKey, reusing } = this.takeFromQueue(at);
    for (const tracked of preassigned) this.checkPreassigned(tracked, outcome);
    const continued = reusing ? this.continued : undefined;
    this.continued = undefined;
    let last: ContinuedBatch | undefined;
    for (const [key, group] of groups) {
      const goesOn = continued?.key === key ? continued : undefined;
      last = this.scheduleGroup(state, key, group, at, goesOn, key === cutKey, outcome);
    }
    // Kept only when the batch cut short was the last one placed: nothing changed since.
    if (cutKey !== undefined && last?.key === cutKey) this.continued = last;
    return this.proposals(state, outcome);
  }

  /** Tasks left in the queue by the budget: decide again at once, without waiting for the log to move. */
  wakeAt(_state: ClusterState): number | undefined {
    return this.view.queue.size > 0 ? 0 : undefined;
  }

  /**
   * The head of the queue, as much of it as one decision may place: tasks whose node was
   * chosen at creation, and the rest batched by service@specVersion. A new batch costs a
   * look at every node (its tree) — unless it goes on with the tree the last decision kept,
   * which it can only as the first batch with nothing placed before it — and each task
   * TASK_COST. `cutKey`: the batch of the first task left in the queue.
   */
  private takeFromQueue(now: number): { preassigned: Tracked[]; groups: Map<string, Tracked[]>; cutKey?: string; reusing: boolean } {
    const budget = new TickBudget(this.tickBudget);
    const treeCost = this.view.nodes.size;
    const groups = new Map<string, Tracked[]>();
    /** The same batches by service and spec version, found without making their key. */
    const byService = new Map<string, Map<number, Batch>>();
    let last: Batch | undefined;
    const preassigned: Tracked[] = [];
    /** The first batch goes on with the kept tree, so far as the budget is told. */
    let reusing = false;
    for (const tracked of this.view.queue) {
      if (tracked.phase !== 'queued') {
        this.view.queue.delete(tracked);
        continue;
      }
      if (tracked.task.nodeId !== undefined) {
        // Placed before every batch, it makes the kept tree stale: that one is built after all.
        if (!budget.spend(reusing ? treeCost + TASK_COST : TASK_COST)) return { preassigned, groups, reusing };
        reusing = false;
        preassigned.push(tracked);
      } else {
        const { serviceId, specVersion } = tracked.task;
        // The queue holds a batch's tasks side by side: the last batch is most often the one.
        if (!last || last.serviceId !== serviceId || last.specVersion !== specVersion) last = byService.get(serviceId)?.get(specVersion);
        if (last) {
          if (!budget.spend(TASK_COST)) return { preassigned, groups, cutKey: last.key, reusing };
          last.tasks.push(tracked);
        } else {
          const key = `${serviceId}@${specVersion}`;
          const reuse = groups.size === 0 && preassigned.length === 0 && continues(this.continued, key, this.view.changes, now, this.view.queue.size);
          if (!budget.spend(reuse ? TASK_COST : treeCost + TASK_COST)) return { preassigned, groups, cutKey: key, reusing };
          reusing = reuse;
          last = { serviceId, specVersion, key, tasks: [tracked] };
          groups.set(key, last.tasks);
          let versions = byService.get(serviceId);
          if (!versions) byService.set(serviceId, (versions = new Map()));
          versions.set(specVersion, last);
        }
      }
      this.view.queue.delete(tracked);
    }
    return { preassigned, groups, reusing };
  }

  /** Proposals whose verdict never arrived (an append that failed): back to the queue. */
  private settleUnobserved(state: ClusterState): void {
    if (this.view.placed.size === 0) return;
    for (const id of [...this.view.placed]) this.view.syncTask(state, id);
    this.view.capacityChanged = true;
  }

  /** A task whose node was chosen at creation: that node must pass every filter. */
  private checkPreassigned(tracked: Tracked, outcome: SchedulingOutcome): void {
    const nodeId = tracked.task.nodeId as string;
    const node = this.view.nodes.get(nodeId);
    this.pipeline.setTask(tracked);
    if (node && this.pipeline.process(node)) {
      this.view.place(tracked, node);
      outcome.assigned.push({ id: tracked.id, nodeId, why: `global: its node ${nodeId} was chosen at creation and passed every filter` });
      return;
    }
    this.view.park(tracked);
    outcome.unschedulable.push({
      id: tracked.id,
      explain: node ? noSuitableNode(this.pipeline.explain()) : `no suitable node (node ${nodeId} is gone)`,
    });
  }

  /**
   * One batch of identical tasks over one decision tree: `continued`'s, or one built now,
   * with every node that passes when the batch is `cut` (the rest of it comes next tick).
   * Returns the tree to keep for the rest, if every task of this slice found a node.
   */
  private scheduleGroup(
    state: ClusterState,
    key: string,
    group: readonly Tracked[],
    now: number,
    continued: ContinuedBatch | undefined,
    cut: boolean,
    outcome: SchedulingOutcome,
  ): ContinuedBatch | undefined {
    const first = group[0] as Tracked;
    const { serviceId, specVersion } = first.task;
    const service = state.services.get(serviceId);
    if (!service) {
      // Its service is gone: the orchestrator will tell these tasks to go; nothing to place.
      for (const tracked of group) this.view.park(tracked);
      return undefined;
    }
    const serviceName = service.spec.name;
    this.pipeline.setTask(first);
    let timeSensitive = continued?.timeSensitive ?? false;
    const nodes = this.view.nodes;
    nodes.rankById(now);
    const hints = { faultless: nodes.failingNodes === 0, ranked: nodes.ranked };
    const compare = continued?.compare ?? nodeOrder(serviceId, specVersion, now, hints);
    const preferences = first.task.spec.placement?.preferences ?? [];
    // A batch cut short keeps a tree for the rest of it, which is still queued.
    const maxAssignments = cut ? group.length + this.view.queue.size : group.length;
    const notesFailures = (node: NodeInfo): boolean => {
      if (node.failing && node.recentFailures(serviceId, specVersion, now) > 0) timeSensitive = true;
      return true;
    };
    const { tree, passed, seen } =
      continued ??
      (preferences.length === 0
        ? buildLeaf(this.candidates.of(this.pipeline, nodes), nodes.size, {
            maxAssignments,
            passes: this.pipeline.varies
              ? (node) => this.pipeline.processVarying(node) && notesFailures(node)
              : hints.faultless
                ? undefined
                : notesFailures,
            compare: nodes.activeOf(serviceId) === 0 ? nodeOrder(serviceId, specVersion, now, { ...hints, unplaced: true }) : compare,
          })
        : buildTree(nodes.values(), {
            serviceId,
            preferences,
            maxAssignments,
            passes: (node) => this.pipeline.process(node) && notesFailures(node),
            compare,
          }));
    let next = 0;
    const passedOf = `; ${passed} of ${plural(seen, 'node')} passed`;
    spreadOver(tree, group.length, {
      compare,
      ...(hints.faultless ? { heap: (nodes: NodeInfo[]) => new CountedMinHeap(nodes, serviceId, byId(hints.ranked)) } : {}),
      assign: (node, path) => {
        const tracked = group[next++] as Tracked;
        this.view.place(tracked, node);
        const faulty = node.failing ? node.recentFailures(serviceId, specVersion, now) : 0;
        const note = faulty >= MAX_FAILURES ? `; node failed ${faulty} tasks of ${serviceName} lately, but no better node was left` : '';
        outcome.assigned.push({ id: tracked.id, nodeId: node.id, why: why(node, path, serviceId, serviceName) + passedOf + note });
        // It passed every filter before; only those that vary with load can have changed.
        return this.pipeline.processVarying(node);
      },
    });
    if (next === group.length) {
      const room = (continued?.room ?? maxAssignments) - next;
      return { key, tree, passed, seen, compare, changes: this.view.changes, timeSensitive, now: continued?.now ?? now, room };
    }
    // What stops the rest, as things stand after this batch's placements.
    this.pipeline.resetCounts();
    for (const node of this.view.nodes.values()) this.pipeline.process(node);
    const explain = noSuitableNode(this.pipeline.explain());
    for (const tracked of group.slice(next)) {
      this.view.park(tracked);
      outcome.unschedulable.push({ id: tracked.id, explain });
    }
    return undefined;
  }

  private proposals(state: ClusterState, outcome: SchedulingOutcome): Proposal[] {
    const out: Proposal[] = [];
    for (let i = 0; i < outcome.assigned.length; i += MAX_BATCH) {
      out.push({ type: 'TasksAssigned', data: { tasks: outcome.assigned.slice(i, i + MAX_BATCH) } });
    }
    // Say so only when the explanation is news: a task already saying it is left alone.
    const news = outcome.unschedulable.filter((r) => state.tasks.get(r.id)?.status.err !== r.explain);
    for (let i = 0; i < news.length; i += MAX_BATCH) {
      out.push({ type: 'TasksUnschedulable', data: { tasks: news.slice(i, i + MAX_BATCH) } });
    }
    return out;
  }
}

/**
 * "spread: node.labels.zone=east has 3 of 9; node has 1 task of web (4 in all)", to which
 * the batch adds how many nodes passed.
 */
const why = (node: NodeInfo, path: readonly DecisionTree[], serviceId: string, name: string): string => {
  const tasks = node.tasksOf(serviceId);
  const here = `node has ${tasks} ${tasks === 1 ? 'task' : 'tasks'} of ${name} (${node.activeTasks} in all)`;
  if (path.length < 2) return here;
  const levels: string[] = [];
  for (let i = 1; i < path.length; i++) {
    const level = path[i] as DecisionTree;
    levels.push(`${level.label} has ${level.serviceTasks} of ${(path[i - 1] as DecisionTree).serviceTasks}`);
  }
  return `spread: ${levels.join(', ')}; ${here}`;
};
