/**
 * The decision tree for one batch of identical tasks: one level per placement preference
 * (`spread=node.labels.zone`), a branch per value found among the nodes ("" for nodes
 * without the label), and at each leaf a heap of the nodes that passed the filters. Every
 * level counts the service's active tasks below it, and all tasks below it, over every
 * node (suitable or not), so that the spread evens out what is really there.
 */
import type { PlacementPreference } from '@shoal/contracts';
import type { NodeInfo } from './node-info';
import { ENGINE_LABEL_PREFIX, NODE_LABEL_PREFIX } from '../constraints';
import { BoundedMaxHeap } from './node-heap';
import type { Compare, PlacingHeap } from './node-heap';


export class DecisionTree {
  /** The service's active tasks on the nodes below. */
  serviceTasks = 0;
  /** All active tasks on the nodes below. */
  allTasks = 0;
  /** Next level, by the preference's value; absent at a leaf. */
  branches?: Map<string, DecisionTree>;
  /** At a leaf: the best candidates while building, then the placing heap. */
  candidates?: BoundedMaxHeap<NodeInfo>;
  placing?: PlacingHeap<NodeInfo>;

  /** "node.labels.zone=east"; "" for the root. */
  constructor(readonly label: string = '') {}
}

/** The value of a spread descriptor on a node; undefined for a descriptor Shoal cannot spread on. */
export const spreadValue = (descriptor: string, node: NodeInfo): string | undefined => {
  const lower = descriptor.toLowerCase();
  if (lower.length > NODE_LABEL_PREFIX.length && lower.startsWith(NODE_LABEL_PREFIX)) {
    return node.node.spec.labels[descriptor.slice(NODE_LABEL_PREFIX.length)] ?? '';
  }
  if (lower.length > ENGINE_LABEL_PREFIX.length && lower.startsWith(ENGINE_LABEL_PREFIX)) {
    return node.node.description.engine?.labels?.[descriptor.slice(ENGINE_LABEL_PREFIX.length)] ?? '';
  }
  return undefined;
};

export interface TreeInput {
  readonly serviceId: string;
  readonly preferences: readonly PlacementPreference[];
  /** The batch size: no leaf keeps more candidates than this. */
  readonly maxAssignments: number;
  readonly passes: (node: NodeInfo) => boolean;
  readonly compare: Compare<NodeInfo>;
}

/**
 * The tree of a batch without placement preferences: a leaf alone, over `candidates` (the
 * nodes past the filters that do not vary, candidates.ts) of `seen` nodes in all; without
 * `passes`, every candidate passes. Its counts stay 0: only levels are spread over, and it
 * has none.
 */
export const buildLeaf = (
  candidates: readonly NodeInfo[],
  seen: number,
  input: Omit<TreeInput, 'serviceId' | 'preferences' | 'passes'> & { readonly passes?: TreeInput['passes'] },
): { tree: DecisionTree; passed: number; seen: number } => {
  const root = new DecisionTree();
  const heap = new BoundedMaxHeap(input.compare, input.maxAssignments);
  root.candidates = heap;
  const { passes } = input;
  if (!passes) {
    for (const node of candidates) heap.offer(node);
    return { tree: root, passed: candidates.length, seen };
  }
  let passed = 0;
  for (const node of candidates) {
    if (!passes(node)) continue;
    passed++;
    heap.offer(node);
  }
  return { tree: root, passed, seen };
};

/** Builds the tree over `nodes`; counts every node, keeps the ones that pass. */
export const buildTree = (nodes: Iterable<NodeInfo>, input: TreeInput): { tree: DecisionTree; passed: number; seen: number } => {
  const root = new DecisionTree();
  let passed = 0;
  let seen = 0;
  const descriptors = input.preferences.map((p) => p.spread);
  for (const node of nodes) {
    seen++;
    const serviceTasks = node.tasksOf(input.serviceId);
    let tree = root;
    for (const descriptor of descriptors) {
      const value = spreadValue(descriptor, node);
      if (value === undefined) continue;
      tree.serviceTasks += serviceTasks;
      tree.allTasks += node.activeTasks;
      tree.branches ??= new Map();
      let next = tree.branches.get(value);
      if (!next) {
        next = new DecisionTree(`${descriptor}=${value}`);
        tree.branches.set(value, next);
      }
      tree = next;
    }
    tree.serviceTasks += serviceTasks;
    tree.allTasks += node.activeTasks;
    tree.candidates ??= new BoundedMaxHeap(input.compare, input.maxAssignments);
    if (input.passes(node)) {
      passed++;
      tree.candidates.offer(node);
    }
  }
  return { tree: root, passed, seen };
};
