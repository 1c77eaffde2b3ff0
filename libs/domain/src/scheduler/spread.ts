/**
 * Spreading a batch over its decision tree. At each level the tasks are shared out so that
 * the branches' counts of the service's tasks come out as even as they can (water-filling:
 * the emptiest branches are raised to the next one's level, then the rest go round, fewest
 * tasks in all first); a branch that cannot take its share is left out and the rest is
 * shared again. At a leaf the nodes are made a heap, best on top, and each task goes to the
 * best node there: that fills the emptiest node to the next node's level, then goes round-robin.
 */
import type { DecisionTree } from './decision-tree';
import { MinHeap } from './node-heap';
import type { Compare, PlacingHeap } from './node-heap';
import type { NodeInfo } from './node-info';

export interface SpreadInput {
  readonly compare: Compare<NodeInfo>;
  /**
   * Puts the batch's next task on `node`, reached through `path` (root first, counts
   * already raised); says whether the node can still take another of the batch.
   */
  readonly assign: (node: NodeInfo, path: readonly DecisionTree[]) => boolean;
  /** The heap a leaf places from, given its candidates in any order; a MinHeap of `compare` unless told. */
  readonly heap?: (nodes: NodeInfo[]) => PlacingHeap<NodeInfo>;
}

const branchOrder = (a: DecisionTree, b: DecisionTree): number =>
  a.serviceTasks - b.serviceTasks || a.allTasks - b.allTasks || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0);

/**
 * How many of `n` tasks each branch should take so that the counts end as even as
 * possible, in the order of `branches` (best first: fewest of the service, fewest in all).
 */
export const shares = (branches: readonly DecisionTree[], n: number): number[] => {
  const counts = branches.map((b) => b.serviceTasks);
  const m = counts.length;
  if (m === 0) return [];
  let left = n;
  let level = counts[0] as number;
  let raised = 1;
  while (raised < m) {
    const next = counts[raised] as number;
    const cost = (next - level) * raised;
    if (cost > left) break;
    left -= cost;
    level = next;
    raised++;
  }
  const lift = Math.floor(left / raised);
  level += lift;
  left -= lift * raised;
  return counts.map((count, i) => (i < raised ? level - count + (i < left ? 1 : 0) : 0));
};

const fillLeaf = (leaf: DecisionTree, n: number, path: readonly DecisionTree[], input: SpreadInput): number => {
  if (!leaf.placing) {
    const nodes = leaf.candidates?.unordered() ?? [];
    leaf.placing = input.heap ? input.heap(nodes) : new MinHeap(nodes, input.compare);
  }
  const heap = leaf.placing;
  let placed = 0;
  while (placed < n) {
    const node = heap.top;
    if (!node) break;
    for (const tree of path) {
      tree.serviceTasks++;
      tree.allTasks++;
    }
    const more = input.assign(node, path);
    placed++;
    if (more) heap.topChanged();
    else heap.popTop();
  }
  return placed;
};

const placeOn = (tree: DecisionTree, n: number, path: readonly DecisionTree[], input: SpreadInput): number => {
  if (n <= 0) return 0;
  if (!tree.branches) return fillLeaf(tree, n, path, input);
  let usable = [...tree.branches.values()];
  let placed = 0;
  while (placed < n && usable.length > 0) {
    usable.sort(branchOrder);
    const quota = shares(usable, n - placed);
    const full = new Set<DecisionTree>();
    usable.forEach((branch, i) => {
      const want = quota[i] as number;
      if (want === 0) return;
      const got = placeOn(branch, want, [...path, branch], input);
      placed += got;
      if (got < want) full.add(branch);
    });
    if (full.size === 0) break;
    usable = usable.filter((b) => !full.has(b));
  }
  return placed;
};

/** Places up to `n` tasks over the tree; returns how many found a node. */
export const spreadOver = (root: DecisionTree, n: number, input: SpreadInput): number => placeOn(root, n, [root], input);
