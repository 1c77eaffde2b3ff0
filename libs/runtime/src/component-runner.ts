/**
 * Runs a component: replay → take ownership → tick. A tick decides from the view,
 * appends the proposals as one batch, waits until the view has ruled on them, and decides
 * again; with nothing to do it sleeps until the log moves, batching bursts the way
 * SwarmKit debounces (wait for a 50 ms gap, at most 1 s). A standby keeps its view warm
 * and takes over when the lease comes to it; a lost lease stops it acting at once. Given
 * snapshots, the view starts from the newest that belongs to the log and is saved now and
 * then; the core learns the restored state as it does on taking over (reconcileAll) — a
 * core nothing asks while standing by (idleWhileStandby) only then, once.
 */
import type { ShoalEvent } from '@shoal/contracts';
import type { EventLog } from '@shoal/eventlog';
import type { ComponentCore, Proposal, Snapshot, Verdict } from '@shoal/domain';
import { EventWriter } from './event-writer';
import { runInSlices } from './in-slices';
import { LiveView } from './live-view';
import { takeOwnership } from './ownership';
import type { ProcessMetrics } from './process-metrics';
import type { Ownership } from './ownership';
import { SnapshotSaver, snapshotFor } from './view-snapshots';
import type { ViewSnapshots } from './view-snapshots';
import { TickTracer } from './tracing/tick-tracer';
import type { TraceCauses } from './tracing/tick-tracer';

/** Longest the core learns the state (reconcileInSteps) before the event loop turns, in ms. */
export const LEARN_SLICE_MS = 10;

export interface RunnerOptions {
  /** The cluster (record key) to write for; by default the one the log's ClusterInitialized names. */
  readonly cluster?: string;
  readonly instance: string;
  /** Quiet gap before acting on a burst of changes (ms); default 50. */
  readonly gapMs?: number;
  /** Longest a burst may delay acting (ms); default 1000. */
  readonly capMs?: number;
  readonly now?: () => Date;
  /** Told of what the runner does, for logs and tests. */
  readonly onActivity?: (what: RunnerActivity) => void;
  /** Where the view is snapshotted, and how often: a restart then replays only the tail. */
  readonly snapshots?: ViewSnapshots;
  /** The process's metrics, where the runner reports its view, whether it is active and its ticks. */
  readonly metrics?: ProcessMetrics;
  /** Causes of its proposals the component knows beyond the traced records since its last tick (tracing/tick-tracer.ts). */
  readonly traceCauses?: TraceCauses;
  /** The name its view is reported under in the metrics; default the component's (a process serving several clusters names each). */
  readonly viewName?: string;
  /** The partition it serves, named in its component metrics (`partition` label) when the process serves several. */
  readonly partition?: number;
}

export type RunnerActivity =
  | { readonly kind: 'owner'; readonly term: number }
  /** A tick's batch: how many records, how many evolve rejected, each record's id, and why each refused one was. */
  | { readonly kind: 'appended'; readonly count: number; readonly rejected: number; readonly ids: readonly string[]; readonly refused: readonly AppendRefusal[] }
  | { readonly kind: 'lost'; readonly reason: string }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'restored'; readonly offset: number }
  /** A snapshot of the view saved (on a timer, or on stopping): its offset, and how long it took. */
  | { readonly kind: 'snapshot saved'; readonly offset: number; readonly ms: number }
  /** While active: the instances in line for the lease (this one and its standbys), at first and on every change. */
  | { readonly kind: 'members'; readonly members: readonly string[] }
  | { readonly kind: 'not restored'; readonly reason: string };

export interface AppendRefusal {
  readonly eventId: string;
  readonly type: string;
  readonly reasons: readonly string[];
}

export type RunnerState = 'starting' | 'standby' | 'active' | 'stopped';

export class ComponentRunner {
  private viewValue: LiveView;
  private saver?: SnapshotSaver;
  private writerValue?: EventWriter;
  private stateValue: RunnerState = 'starting';
  private ownership?: Ownership;
  private dirty = false;
  /** Appends that failed in a row (for the back-off). */
  private failures = 0;
  private waiters: (() => void)[] = [];
  private loop?: Promise<void>;
  private readonly now: () => Date;
  private unreport: (() => void)[] = [];
  private readonly traces: TickTracer;
  /**
   * Whether the core has learnt the view's state (reconcileAll, or every record from the
   * start): a core idle while standing by learns a restored view only on taking over, and
   * is told of no record before that.
   */
  private coreKnowsState = true;

  constructor(
    /** The log it reads and writes: one partition, one cluster. */
    readonly log: EventLog,
    /** What it decides with. */
    readonly core: ComponentCore,
    private readonly options: RunnerOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.traces = new TickTracer(core.component, options.traceCauses);
    this.viewValue = this.newView();
  }

  /** The component's view of the log (from a snapshot once started, when one was usable). */
  get view(): LiveView {
    return this.viewValue;
  }

  private newView(snapshot?: Snapshot): LiveView {
    const observed = this.options.metrics?.views.observer(this.options.viewName ?? this.core.component);
    return new LiveView(this.log, {
      onEvent: (event, verdict, state) => {
        observed?.(event, verdict, state);
        if (this.coreKnowsState) this.core.observe(event, verdict, state);
      },
      onApplied: (records) => {
        this.traces.observe(records);
        this.changed();
      },
      onHalted: (message) => this.options.onActivity?.({ kind: 'error', message }),
      ...(snapshot ? { snapshot } : {}),
    });
  }

  private get writer(): EventWriter {
    if (!this.writerValue) throw new Error('the runner has not started');
    return this.writerValue;
  }

  /** The partition named in its metrics, when the process serves several. */
  get partition(): number | undefined {
    return this.options.partition;
  }

  get component(): string {
    return this.core.component;
  }

  get state(): RunnerState {
    return this.stateValue;
  }

  get term(): number | undefined {
    return this.ownership?.term;
  }

  /** While active, the instances in line for the lease, this one included (sorted); else none. */
  get members(): readonly string[] {
    return this.is('active') ? (this.ownership?.lease.members() ?? []) : [];
  }

  /** Resolves once this instance is the active one (for a process that must be up before it says so). */
  async untilActive(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.is('active')) {
      if (this.is('stopped') || Date.now() > deadline) throw new Error(`${this.component} did not become active within ${timeoutMs} ms`);
      await this.sleep(10);
    }
  }

  /** Replays, then runs in the background: standby until it owns the partition, then active. */
  async start(): Promise<void> {
    const metrics = this.options.metrics;
    if (metrics) {
      this.unreport.push(
        metrics.views.add(this.options.viewName ?? this.core.component, { view: () => this.viewValue, logEnd: () => this.log.highWaterMark() }),
        metrics.addComponent(this),
      );
    }
    const snapshots = this.options.snapshots;
    let restoredAt: number | undefined;
    if (snapshots) {
      const { snapshot, refused } = await snapshotFor(this.log, snapshots.store);
      if (snapshot) {
        const view = this.newView(snapshot);
        if (view.snapshotRefused === undefined) {
          this.viewValue = view;
          restoredAt = snapshot.offset;
          // The core saw none of the records before the snapshot: it learns the state whole,
          // now, or (a core idle while standing by) when it takes over, which learns it anyway.
          if (this.core.idleWhileStandby) this.coreKnowsState = false;
          else this.core.reconcileAll(view.state);
          this.options.onActivity?.({ kind: 'restored', offset: snapshot.offset });
        } else this.options.onActivity?.({ kind: 'not restored', reason: view.snapshotRefused });
      } else if (refused) this.options.onActivity?.({ kind: 'not restored', reason: refused });
    }
    await this.view.start();
    if (snapshots) {
      const onError = (message: string): void => this.options.onActivity?.({ kind: 'error', message });
      this.saver = new SnapshotSaver(snapshots, () => this.view, onError, restoredAt, Date.now, (saved) => this.options.onActivity?.({ kind: 'snapshot saved', ...saved }));
      this.saver.start();
    }
    // Without a cluster named, the one the log names, read at each record: a partition whose cluster is created later keys its records by it.
    const cluster = this.options.cluster ?? (() => this.view.state.cluster?.id ?? 'default');
    this.writerValue = new EventWriter(this.log, cluster, this.core.component, this.options.instance, { now: this.now });
    this.stateValue = 'standby';
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (this.stateValue === 'stopped') return;
    this.stateValue = 'stopped';
    this.changed();
    await this.ownership?.lease.release();
    await this.loop;
    await this.saver?.flush();
    await this.view.stop();
    for (const unreport of this.unreport.splice(0)) unreport();
  }

  /** Read through a method: the state changes under awaits, which narrowing cannot see. */
  private is(state: RunnerState): boolean {
    return this.stateValue === state;
  }

  private async run(): Promise<void> {
    while (!this.is('stopped')) {
      let ownership: Ownership;
      try {
        ownership = await takeOwnership(this.log, this.view, this.writer);
      } catch (error) {
        if (this.is('stopped')) return;
        this.options.onActivity?.({ kind: 'error', message: (error as Error).message });
        await this.sleep(1_000);
        continue;
      }
      if (this.is('stopped')) {
        await ownership.lease.release();
        return;
      }
      this.ownership = ownership;
      this.stateValue = 'active';
      this.options.onActivity?.({ kind: 'owner', term: ownership.term });
      void ownership.lease.lost.then((reason) => this.lost(ownership, reason));
      await this.learn();
      const unwatch = ownership.lease.onMembers((members) => {
        if (this.is('active')) this.options.onActivity?.({ kind: 'members', members });
      });
      this.options.onActivity?.({ kind: 'members', members: ownership.lease.members() });
      try {
        await this.act(ownership);
      } finally {
        unwatch();
      }
      if (!this.is('stopped')) this.stateValue = 'standby';
    }
  }

  /**
   * The lease of `ownership` is gone: this instance is a standby from this moment, not
   * once the tick loop notices — that loop may be waiting on the log for seconds (an append
   * during a broker outage), and a process that still said it was active meanwhile would
   * serve as if it were (a dispatcher would take the agents' sessions back, out of sight of
   * the instance that takes the next term).
   */
  private lost(ownership: Ownership, reason: string): void {
    if (this.ownership === ownership && this.is('active')) {
      this.stateValue = 'standby';
      this.options.onActivity?.({ kind: 'lost', reason });
    }
    this.changed();
  }

  /**
   * The log refused this instance's record for its term: another instance took a newer one,
   * or this one's OwnershipTaken is not on the log (a write a broker's failover lost, though
   * the view had ruled on it). The log is the authority on terms, whatever the lease says:
   * give the lease back and take a term afresh, as a standby does.
   */
  private async stepDown(ownership: Ownership, reason: string): Promise<void> {
    this.lost(ownership, `the log refused this instance's term: ${reason}`);
    await ownership.lease.release().catch(() => undefined);
  }

  /** The tick loop while this instance owns the partition. */
  private async act(ownership: Ownership): Promise<void> {
    while (this.is('active') && ownership.lease.isHeld()) {
      // A view stopped on a record it cannot read holds an old state: nothing is decided from it.
      if (this.view.halted) {
        await this.nextChange();
        continue;
      }
      const tickStarted = performance.now();
      const proposals = this.core.decide(this.view.state, this.now());
      this.options.metrics?.decided(this.core.component, (performance.now() - tickStarted) / 1000, this.options.partition);
      const traced = this.traces.tick(proposals);
      if (proposals.length > 0) {
        const events = proposals.map((p) => this.stamp(p));
        let verdicts: Verdict[];
        try {
          verdicts = await this.traces.run(traced, () => this.writer.appendAndWait(this.view, events));
          this.failures = 0;
        } catch (error) {
          traced?.fail(error);
          await this.recover(error);
          continue;
        }
        traced?.end(events, verdicts);
        this.options.metrics?.tick(this.core.component, (performance.now() - tickStarted) / 1000, events.map((e) => e.type), verdicts, this.options.partition);
        const rejected = verdicts.filter((v) => v.status === 'rejected').length;
        const refused = events.flatMap((event, index) => {
          const verdict = verdicts[index];
          return verdict && verdict.status !== 'applied' ? [{ eventId: event.id, type: event.type, reasons: verdict.reasons }] : [];
        });
        // Told within the tick's span, if it has one: the lines logged of it carry its trace id.
        this.traces.run(traced, () => this.options.onActivity?.({ kind: 'appended', count: events.length, rejected, ids: events.map((event) => event.id), refused }));
        const deposed = verdicts.find((verdict) => verdict.status === 'rejected' && verdict.codes.includes('superseded-term'));
        if (deposed) {
          await this.stepDown(ownership, deposed.reasons.join('; '));
          return;
        }
        if (rejected === events.length) await this.waitForChange();
        continue;
      }
      await this.waitForChange();
    }
  }

  /**
   * An append failed (the log unreachable, a record refused): nothing is lost, since the
   * core decides again from the view. Say so, back off, catch the view up with whatever did
   * reach the log, and let the core look at everything afresh, as at start-up — its watch
   * lists may be waiting for verdicts that will never come.
   */
  private async recover(error: unknown): Promise<void> {
    this.failures++;
    this.options.onActivity?.({ kind: 'error', message: `append failed (${this.failures} in a row): ${(error as Error).message ?? String(error)}` });
    await this.sleep(Math.min(10_000, 250 * 2 ** Math.min(this.failures, 6)));
    try {
      await this.view.waitFor(await this.log.highWaterMark());
    } catch {
      return; // the log is still away: the next attempt will say so
    }
    if (this.is('active')) await this.learn();
  }

  /**
   * The core learns the view's state whole (reconcileAll), in steps where it has them, the
   * event loop turning whenever LEARN_SLICE_MS went by. From the first step on it is told
   * of every record the view applies meanwhile.
   */
  private async learn(): Promise<void> {
    this.coreKnowsState = true;
    const steps = this.core.reconcileInSteps?.(this.view.state);
    if (!steps) {
      this.core.reconcileAll(this.view.state);
      return;
    }
    await runInSlices(steps, LEARN_SLICE_MS);
  }

  private stamp(proposal: Proposal): ShoalEvent {
    return this.writer.propose(proposal.type, proposal.data as never, proposal.expect ? { expect: proposal.expect } : {});
  }

  /**
   * Asks an active runner to decide again although the log did not move: for a core that is
   * also fed from outside the log (the dispatcher's agent sessions).
   */
  wake(): void {
    this.changed();
  }

  private changed(): void {
    this.dirty = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves on the next change of the view (or when the runner must stop acting). */
  private nextChange(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Sleeps until the log moves (or the core's wake-up time comes), then lets the burst
   * settle: a quiet gap, or the cap.
   */
  private async waitForChange(): Promise<void> {
    if (!this.dirty) {
      const wakeAt = this.core.wakeAt?.(this.view.state);
      if (wakeAt === undefined) await this.nextChange();
      else {
        const timer = this.timer(Math.max(0, wakeAt - this.now().getTime()));
        const woken = await Promise.race([timer.elapsed.then(() => true), this.nextChange().then(() => false)]);
        timer.cancel();
        if (woken) return;
      }
    }
    const gap = this.options.gapMs ?? 50;
    const cap = this.options.capMs ?? 1_000;
    const first = Date.now();
    while (this.is('active')) {
      this.dirty = false;
      const more = await Promise.race([this.sleep(gap).then(() => false), this.nextChange().then(() => true)]);
      if (!more || Date.now() - first >= cap) break;
    }
    this.dirty = false;
  }

  private timer(ms: number): { readonly elapsed: Promise<void>; cancel(): void } {
    let handle: ReturnType<typeof setTimeout> | undefined;
    const elapsed = new Promise<void>((resolve) => (handle = setTimeout(resolve, Math.min(ms, 2 ** 31 - 1))));
    return { elapsed, cancel: () => clearTimeout(handle) };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}
