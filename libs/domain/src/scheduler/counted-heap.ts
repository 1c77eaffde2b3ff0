/**
 * The placing heap of a batch in a view where no node has a failure: its order is then the
 * service's tasks on a node, all the node's tasks, then `tie` (nodeOrder with `faultless`),
 * and each node's two counts are read once as it enters and again only when a task is
 * placed on it — not at every comparison, which is most of a large batch's placing.
 */
import type { Compare, PlacingHeap } from './node-heap';
import type { NodeInfo } from './node-info';

export class CountedMinHeap implements PlacingHeap<NodeInfo> {
  private readonly items: NodeInfo[];
  private readonly ofService: number[];
  private readonly all: number[];

  /** `nodes`: the leaf's candidates in any order; they are made a heap here. */
  constructor(
    nodes: NodeInfo[],
    private readonly serviceId: string,
    private readonly tie: Compare<NodeInfo>,
  ) {
    this.items = nodes;
    this.ofService = nodes.map((node) => node.tasksOf(serviceId));
    this.all = nodes.map((node) => node.activeTasks);
    for (let i = (nodes.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  get top(): NodeInfo | undefined {
    return this.items[0];
  }

  topChanged(): void {
    const top = this.items[0];
    if (!top) return;
    this.ofService[0] = top.tasksOf(this.serviceId);
    this.all[0] = top.activeTasks;
    this.siftDown(0);
  }

  popTop(): void {
    const last = this.items.length - 1;
    if (last < 0) return;
    this.move(last, 0);
    this.items.length = last;
    this.ofService.length = last;
    this.all.length = last;
    if (last > 0) this.siftDown(0);
  }

  private before(i: number, j: number): boolean {
    const a = this.ofService[i] as number;
    const b = this.ofService[j] as number;
    if (a !== b) return a < b;
    const x = this.all[i] as number;
    const y = this.all[j] as number;
    if (x !== y) return x < y;
    return this.tie(this.items[i] as NodeInfo, this.items[j] as NodeInfo) < 0;
  }

  private siftDown(i: number): void {
    const n = this.items.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) return;
      const right = left + 1;
      const child = right < n && this.before(right, left) ? right : left;
      if (!this.before(child, i)) return;
      this.swap(i, child);
      i = child;
    }
  }

  private swap(i: number, j: number): void {
    const item = this.items[i] as NodeInfo;
    const ofService = this.ofService[i] as number;
    const all = this.all[i] as number;
    this.move(j, i);
    this.items[j] = item;
    this.ofService[j] = ofService;
    this.all[j] = all;
  }

  /** Copies entry `from` over entry `to`. */
  private move(from: number, to: number): void {
    this.items[to] = this.items[from] as NodeInfo;
    this.ofService[to] = this.ofService[from] as number;
    this.all[to] = this.all[from] as number;
  }
}
