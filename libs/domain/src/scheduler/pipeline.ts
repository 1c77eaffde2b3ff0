/**
 * The pipeline runs a task's filters over candidate nodes, stopping at a node's first
 * failure, and counts the failures of each filter so that it can explain, SwarmKit-style,
 * why no node would do: "insufficient resources on 2 nodes; 1 node not available for new
 * tasks" (most failures first). The filters that look at a node alone (not its load) can
 * be run apart from the rest: the nodes they pass hold for every task with the same `key`
 * until a node changes (candidates.ts).
 */
import { defaultFilters } from './filters';
import type { Filter } from './filters';
import type { NodeInfo } from './node-info';
import type { SchedulingTask } from './scheduling-task';

interface Entry {
  readonly filter: Filter;
  enabled: boolean;
  failures: number;
}

export class Pipeline {
  private readonly entries: Entry[];
  /** The loaded task's enabled filters that vary with a node's load. */
  private varying: Entry[] = [];
  private fixedKey = '';

  constructor(filters: readonly Filter[] = defaultFilters()) {
    this.entries = filters.map((filter) => ({ filter, enabled: false, failures: 0 }));
  }

  /** Loads a task into every filter and forgets the failures counted so far. */
  setTask(task: SchedulingTask): void {
    const varying: Entry[] = [];
    let key = '';
    for (const entry of this.entries) {
      entry.enabled = entry.filter.setTask(task);
      entry.failures = 0;
      if (!entry.enabled) continue;
      if (entry.filter.varies) varying.push(entry);
      else key += `${entry.filter.name}=${entry.filter.key()};`;
    }
    this.varying = varying;
    this.fixedKey = key;
  }

  /** What the loaded task asks of the filters that do not vary: tasks with one key pass the same nodes. */
  get key(): string {
    return this.fixedKey;
  }

  /** Whether some filter of the loaded task looks at a node's load. */
  get varies(): boolean {
    return this.varying.length > 0;
  }

  /** `process`, for the filters that do not vary only. */
  processFixed(node: NodeInfo): boolean {
    for (const entry of this.entries) {
      if (entry.enabled && !entry.filter.varies && !entry.filter.check(node)) {
        entry.failures++;
        return false;
      }
    }
    return true;
  }

  /** `process`, for the filters that vary only: for a node known to pass the others. */
  processVarying(node: NodeInfo): boolean {
    for (const entry of this.varying) {
      if (!entry.filter.check(node)) {
        entry.failures++;
        return false;
      }
    }
    return true;
  }

  /** Whether the loaded task may run on `node`; a failure is counted against its filter. */
  process(node: NodeInfo): boolean {
    for (const entry of this.entries) {
      if (entry.enabled && !entry.filter.check(node)) {
        entry.failures++;
        return false;
      }
    }
    return true;
  }

  /** Forgets the failures counted so far (the task stays loaded). */
  resetCounts(): void {
    for (const entry of this.entries) entry.failures = 0;
  }

  /** The failing filters' explanations, most failures first; "" when none failed. */
  explain(): string {
    return this.entries
      .map((entry, order) => ({ entry, order }))
      .filter(({ entry }) => entry.failures > 0)
      .sort((a, b) => b.entry.failures - a.entry.failures || a.order - b.order)
      .map(({ entry }) => entry.filter.explain(entry.failures))
      .join('; ');
  }
}

/** The status message of a task no node would take. */
export const noSuitableNode = (explanation: string): string =>
  explanation === '' ? 'no suitable node' : `no suitable node (${explanation})`;
