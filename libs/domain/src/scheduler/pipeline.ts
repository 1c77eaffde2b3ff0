/**
 * The pipeline runs a task's filters over candidate nodes, stopping at a node's first
 * failure, and counts the failures of each filter so that it can explain, SwarmKit-style,
 * why no node would do: "insufficient resources on 2 nodes; 1 node not available for new
 * tasks" (most failures first).
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

  constructor(filters: readonly Filter[] = defaultFilters()) {
    this.entries = filters.map((filter) => ({ filter, enabled: false, failures: 0 }));
  }

  /** Loads a task into every filter and forgets the failures counted so far. */
  setTask(task: SchedulingTask): void {
    for (const entry of this.entries) {
      entry.enabled = entry.filter.setTask(task);
      entry.failures = 0;
    }
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
