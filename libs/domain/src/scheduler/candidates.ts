/**
 * The nodes that pass a task's filters that do not vary with load (ready, plugins,
 * constraints, platform), kept per pipeline key: a thousand services asking the same of
 * their nodes look at the node set once, not once each, and a batch of one task looks only
 * at the nodes it could take. Every list is dropped when any node changes (NodeSet.epoch);
 * each holds the nodes in the node set's order, so a batch sees them as it would have in
 * the node set itself.
 */
import type { NodeInfo } from './node-info';
import type { NodeSet } from './node-set';
import type { Pipeline } from './pipeline';

/** Keys kept at once; the oldest goes first. */
const MAX_KEYS = 16;

export class Candidates {
  private readonly byKey = new Map<string, readonly NodeInfo[]>();
  private epoch = -1;

  /** The nodes of `nodes` that pass the fixed filters of the task loaded in `pipeline`. */
  of(pipeline: Pipeline, nodes: NodeSet): readonly NodeInfo[] {
    if (nodes.epoch !== this.epoch) {
      this.byKey.clear();
      this.epoch = nodes.epoch;
    }
    const key = pipeline.key;
    const known = this.byKey.get(key);
    if (known) return known;
    const passing: NodeInfo[] = [];
    for (const node of nodes.values()) if (pipeline.processFixed(node)) passing.push(node);
    if (this.byKey.size >= MAX_KEYS) this.byKey.delete(this.byKey.keys().next().value as string);
    this.byKey.set(key, passing);
    return passing;
  }
}
