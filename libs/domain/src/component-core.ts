/**
 * What a component is, to the runner: a watch over the events its view applies, and a
 * decision from the view. Both are plain functions of their inputs; the runner does all
 * the I/O (the log, the clock, ownership).
 */
import type { Component, EventDataMap, EventType, Expectations, ShoalEvent } from '@shoal/contracts';
import type { ClusterState } from './state';
import type { Verdict } from './verdict';

/** An event a component wants appended (the runner stamps the envelope). */
export type Proposal = {
  [K in EventType]: { readonly type: K; readonly data: EventDataMap[K]; readonly expect?: Expectations };
}[EventType];

export interface ComponentCore {
  readonly component: Component;
  /** Told of every event the view applies (or refuses), in log order: keep a watch list. */
  observe(event: ShoalEvent, verdict: Verdict, state: ClusterState): void;
  /** After replay, before acting: look at everything once (start-up reconciliation). */
  reconcileAll(state: ClusterState): void;
  /**
   * reconcileAll a slice at a time, each step a bounded part of it, so that the runner can
   * let the event loop turn between steps: a process learning a million tasks still answers
   * its health checks and keeps its lease. `observe` may be called between steps, for what
   * the view applies meanwhile, and must leave the core as if told after the whole; `decide`
   * is not called before the last step. A core without it learns in one call.
   */
  reconcileInSteps?(state: ClusterState): Iterable<void>;
  /** What to propose now; an empty list when there is nothing to do. */
  decide(state: ClusterState, now: Date): readonly Proposal[];
  /**
   * When the core next wants to decide even if the log does not move (a restart delay
   * running out, an update's monitor period), in ms since the epoch; undefined for never.
   * Time enters the log only through what `decide` then proposes.
   */
  wakeAt?(state: ClusterState): number | undefined;
  /**
   * Nothing asks this core anything while its runner stands by: a view restored from a
   * snapshot need not be learnt (reconcileAll) until the runner takes over, which learns it
   * anyway. At a million tasks that is seconds of a restart, and of a standby's memory.
   */
  readonly idleWhileStandby?: boolean;
}
