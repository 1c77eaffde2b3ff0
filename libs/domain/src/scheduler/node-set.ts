/** The scheduler's nodes by id, each with what the scheduler has worked out about it. */
import type { Node } from '../state';
import { NodeInfo } from './node-info';

export class NodeSet {
  private readonly nodes = new Map<string, NodeInfo>();

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
    if (!node) {
      this.nodes.delete(id);
      return;
    }
    const info = this.nodes.get(id);
    if (info) info.updateNode(node);
    else this.nodes.set(id, new NodeInfo(node));
  }

  clear(): void {
    this.nodes.clear();
  }
}
