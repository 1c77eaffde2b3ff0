/**
 * Heaps of candidate nodes. While a tree is built each leaf keeps a max-heap bounded by
 * the batch size — no batch of n tasks needs more than n nodes, so a better node displaces
 * the worst one kept. What it kept is then made a min-heap: placing takes the best node,
 * and the node sinks as its count grows.
 */

/** Negative when `a` is the better place for the next task. */
export type Compare<T> = (a: T, b: T) => number;

const swap = <T>(items: T[], i: number, j: number): void => {
  const x = items[i] as T;
  items[i] = items[j] as T;
  items[j] = x;
};

/** Restores the heap below `i`, where `before(a, b)` says a belongs above b. */
const siftDown = <T>(items: T[], i: number, before: (a: T, b: T) => boolean): void => {
  const n = items.length;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= n) return;
    const right = left + 1;
    const child = right < n && before(items[right] as T, items[left] as T) ? right : left;
    if (!before(items[child] as T, items[i] as T)) return;
    swap(items, i, child);
    i = child;
  }
};

/** At most `limit` items, the worst on top so that it can be displaced. */
export class BoundedMaxHeap<T> {
  private readonly items: T[] = [];
  /** The items have been made a heap (once the limit was passed). */
  private heaped = false;
  private readonly before: (a: T, b: T) => boolean;

  constructor(
    private readonly compare: Compare<T>,
    private readonly limit: number,
  ) {
    this.before = (a, b) => compare(a, b) > 0;
  }

  get size(): number {
    return this.items.length;
  }

  /**
   * Keeps `item` if there is room or it is better than the worst kept. Until one more than
   * the limit is offered the items are only gathered: they are made a heap then, so a batch
   * with room for every candidate never orders them here.
   */
  offer(item: T): void {
    const items = this.items;
    if (items.length < this.limit) {
      items.push(item);
      return;
    }
    if (this.limit <= 0) return;
    if (!this.heaped) {
      heapify(items, this.before);
      this.heaped = true;
    }
    if (this.compare(item, items[0] as T) < 0) {
      items[0] = item;
      siftDown(items, 0, this.before);
    }
  }

  /** The items kept, best first. */
  sorted(): T[] {
    return [...this.items].sort(this.compare);
  }

  /** The items kept, in no order: what a heap of another order is made from. */
  unordered(): T[] {
    return [...this.items];
  }
}

/** Makes `items` a heap where `before(a, b)` says a belongs above b. */
const heapify = <T>(items: T[], before: (a: T, b: T) => boolean): void => {
  for (let i = (items.length >> 1) - 1; i >= 0; i--) siftDown(items, i, before);
};

/** What placing a leaf's batch needs of its heap: the best node on top, which gets worse or leaves. */
export interface PlacingHeap<T> {
  readonly top: T | undefined;
  /** The top got worse: let it sink to its place. */
  topChanged(): void;
  /** The top leaves the heap. */
  popTop(): void;
}

/** The best item on top; the top's key may grow (it sinks) or it may leave. */
export class MinHeap<T> implements PlacingHeap<T> {
  private readonly before: (a: T, b: T) => boolean;

  /** `items` in any order: they are made a heap here. */
  constructor(
    private readonly items: T[],
    compare: Compare<T>,
  ) {
    this.before = (a, b) => compare(a, b) < 0;
    heapify(items, this.before);
  }

  get size(): number {
    return this.items.length;
  }

  get top(): T | undefined {
    return this.items[0];
  }

  /** The top got worse: let it sink to its place. */
  topChanged(): void {
    siftDown(this.items, 0, this.before);
  }

  /** The top leaves the heap. */
  popTop(): void {
    const last = this.items.pop() as T;
    if (this.items.length === 0) return;
    this.items[0] = last;
    siftDown(this.items, 0, this.before);
  }

  /** Drops the items that no longer qualify and restores the heap. */
  retain(keep: (item: T) => boolean): void {
    const kept = this.items.filter(keep);
    this.items.length = 0;
    this.items.push(...kept);
    heapify(this.items, this.before);
  }
}
