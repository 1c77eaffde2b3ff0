/** The scheduler's nodes by id, each with what the scheduler has worked out about it. */
import type { Node } from '../state';
import { NodeInfo } from './node-info';
import type { NodeSetTally } from './node-info';

/** Ranks are worked out again at most this often while nodes come and go (a sort of every id). */
const RANK_EVERY_MS = 1_000;

export class NodeSet implements NodeSetTally {
  private readonly nodes = new Map<string, NodeInfo>();
  /** Counts every node added, changed or removed. */
  epoch = 0;
  /** Nodes where some task has failed (NodeInfo.failing). */
  failingNodes = 0;
  /** Whether every node's rank is its place in the order of ids. */
  ranked = false;
  private rankedAt = Number.NEGATIVE_INFINITY;
  /** Active tasks of each service over all the nodes. */
  private readonly totals = new Map<string, number>();

  get size(): number {
    return this.nodes.size;
  }

  get(id: string): NodeInfo | undefined {
    return this.nodes.get(id);
  }

  values(): IterableIterator<NodeInfo> {
    return this.nodes.values();
  }

  /** Adds, updates (keeping its tasks) or, given undefined, removes the node `id`. */
  sync(id: string, node: Node | undefined): void {
    this.epoch++;
    const info = this.nodes.get(id);
    if (!node) {
      info?.detach();
      if (this.nodes.delete(id)) this.ranked = false;
      return;
    }
    if (info) info.updateNode(node);
    else {
      this.nodes.set(id, new NodeInfo(node, this));
      this.ranked = false;
    }
  }

  /**
   * Gives every node its rank in the order of ids (`ranked`), unless they were ranked less
   * than RANK_EVERY_MS before `now` and nodes came or went since (without `now`, whatever
   * the time): an order that breaks ties by id compares ranks when ranked, ids otherwise,
   * and both give the same order.
   */
  rankById(now?: number): void {
    if (this.ranked || (now !== undefined && now - this.rankedAt < RANK_EVERY_MS)) return;
    // The default sort orders strings by UTF-16 code units, as `<` does, without a call per comparison.
    const ids = [...this.nodes.keys()].sort();
    ids.forEach((id, rank) => ((this.nodes.get(id) as NodeInfo).rank = rank));
    this.ranked = true;
    this.rankedAt = now ?? this.rankedAt;
  }

  /** A node's count of `serviceId`'s active tasks moved by `delta` (NodeSetTally). */
  counted(serviceId: string, delta: number): void {
    const next = (this.totals.get(serviceId) ?? 0) + delta;
    if (next > 0) this.totals.set(serviceId, next);
    else this.totals.delete(serviceId);
  }

  /** A node's first failure, or a failing node leaving (NodeSetTally). */
  failing(delta: 1 | -1): void {
    this.failingNodes += delta;
  }

  /** The service's active tasks over all the nodes. */
  activeOf(serviceId: string): number {
    return this.totals.get(serviceId) ?? 0;
  }

  clear(): void {
    this.epoch++;
    for (const info of this.nodes.values()) info.detach();
    this.nodes.clear();
    this.ranked = false;
    this.rankedAt = Number.NEGATIVE_INFINITY;
  }
}
