/** The scheduler's nodes by id, each with what the scheduler has worked out about it. */
import type { Node } from '../state';
import { NodeInfo } from './node-info';

export class NodeSet {
  private readonly nodes = new Map<string, NodeInfo>();
  /** Counts every node added, changed or removed. */
  epoch = 0;
  /** Active tasks of each service over all the nodes. */
  private readonly totals = new Map<string, number>();
  private readonly tally = (serviceId: string, delta: number): void => {
    const next = (this.totals.get(serviceId) ?? 0) + delta;
    if (next > 0) this.totals.set(serviceId, next);
    else this.totals.delete(serviceId);
  };

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
      this.nodes.delete(id);
      return;
    }
    if (info) info.updateNode(node);
    else this.nodes.set(id, new NodeInfo(node, this.tally));
  }

  /** The service's active tasks over all the nodes. */
  activeOf(serviceId: string): number {
    return this.totals.get(serviceId) ?? 0;
  }

  clear(): void {
    this.epoch++;
    for (const info of this.nodes.values()) info.detach();
    this.nodes.clear();
  }
}
