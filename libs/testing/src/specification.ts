/**
 * The one given/when/then for the core, after Emmett's DeciderSpecification: given these
 * events (applied by evolve, as on the log, and shown to the core, as its runner does),
 * when this event arrives or the core decides at this time, then this verdict, these
 * proposals, nothing — or this is the state. A specification is also a small log that
 * goes on: the next `when` starts from where the last one left the state.
 *
 * Events built with the spec's own builder (`event`, `happen`, steps) and the records the
 * core's proposals become share one counter per writer, so their seqs never clash; an
 * event built by another builder keeps its own seq.
 */
import { emptyState, evolve, stateHash } from '@shoal/domain';
import type { ClusterState, ComponentCore, Proposal, Verdict } from '@shoal/domain';
import type { EventDataMap, EventType, ShoalEvent, Task } from '@shoal/contracts';
import { EventBuilder } from './builders';
import type { EventOptions } from './builders';

/** What happened before: an event, or a step that writes events from the state so far. */
export type Given<C extends ComponentCore = ComponentCore> = ShoalEvent | readonly ShoalEvent[] | ((spec: Specification<C>) => ShoalEvent | readonly ShoalEvent[]);

export interface SpecificationOptions<C extends ComponentCore> {
  /** The core under test, made anew on `restart`; without one, evolve alone is under test. */
  readonly core?: (spec: Specification) => C;
  /** A clock the spec keeps (ms since the epoch) and `advance` moves; without it, the builder's. */
  readonly clock?: number;
  /** Stamp every event with the spec's clock rather than the builder's. */
  readonly stampClock?: boolean;
  /** The instance the core writes as. */
  readonly instance?: string;
}

/** After `when(event)`: the verdict, and a rejection must leave the state exactly as it was. */
export interface ThenVerdict {
  /** The event applied in full; `check` looks at the state afterwards. */
  thenApplied(check?: (state: ClusterState) => void): ClusterState;
  /** Some items of the batch applied; the reasons name the others. */
  thenPartial(reason: RegExp, check?: (state: ClusterState) => void): ClusterState;
  /** Refused, with a reason matching `reason`, and the state hash did not move. */
  thenRejected(reason: RegExp): ClusterState;
  then(check: (state: ClusterState, verdict: Verdict) => void): ClusterState;
}

/** After a tick: what the core proposed, as the records its runner appended, and their verdicts. */
export interface Tick {
  readonly proposals: readonly Proposal[];
  readonly events: readonly ShoalEvent[];
  readonly verdicts: readonly Verdict[];
  /** Every proposal applied in full; the records. */
  thenApplied(): readonly ShoalEvent[];
  /** The core had nothing to propose. */
  thenNothing(): void;
}

/** A core that watches nothing and proposes nothing: evolve alone under test. */
const noCore = (): ComponentCore => ({ component: 'api', observe: () => undefined, reconcileAll: () => undefined, decide: () => [] });

export class Specification<C extends ComponentCore = ComponentCore> {
  readonly b = new EventBuilder();
  state: ClusterState = emptyState();
  core: C;
  /** Every record, in log order, refused ones included. */
  readonly log: ShoalEvent[] = [];
  /** evolve's verdict on each record of `log`, in the same order. */
  readonly verdicts: Verdict[] = [];
  /** Every record the core's proposals became, with its verdict. */
  readonly proposed: { readonly event: ShoalEvent; readonly verdict: Verdict }[] = [];
  /** The ids of the tasks of the last TasksCreated applied. */
  lastCreated: string[] = [];
  /** Who the core writes as: its instance and ownership term. */
  writer: { instance: string; term: number };
  private fixedClock: number | undefined;
  private readonly stampClock: boolean;
  private readonly newCore: () => C;
  private readonly counters = new Map<string, number>();

  constructor(options: SpecificationOptions<C> = {}) {
    this.fixedClock = options.clock;
    this.stampClock = options.stampClock ?? false;
    const core = options.core;
    this.newCore = () => (core ? core(this as Specification) : (noCore() as C));
    this.core = this.newCore();
    this.writer = { instance: options.instance ?? `${this.core.component}-1`, term: 0 };
  }

  /** Now, in ms since the epoch: the spec's clock, or the time the builder's next event will carry. */
  get clock(): number {
    return this.fixedClock ?? Date.parse(this.b.now());
  }

  set clock(ms: number) {
    if (this.fixedClock === undefined) throw new Error('this specification has no clock of its own to set');
    this.fixedClock = ms;
  }

  advance(ms: number): this {
    this.clock = this.clock + ms;
    return this;
  }

  /** 1, 2, 3 … for each name: ids a core makes, or a spec's own. */
  next(name: string): number {
    const n = (this.counters.get(name) ?? 0) + 1;
    this.counters.set(name, n);
    return n;
  }

  /** An event someone other than the core writes, stamped at the spec's clock when it keeps one. */
  event<K extends EventType>(type: K, data: EventDataMap[K], options: EventOptions = {}): ShoalEvent {
    const at = this.stampClock ? { at: new Date(this.clock).toISOString() } : {};
    return this.b.event(type, data, { ...at, ...options }) as ShoalEvent;
  }

  /** These happened, each applied in full (anything else is a mistake in the spec). */
  given(...history: readonly Given<C>[]): this {
    for (const step of history) {
      for (const event of this.resolve(step)) {
        const verdict = this.append(event);
        if (verdict.status !== 'applied') {
          throw new Error(`given: ${event.type} (${event.id}) was ${verdict.status}: ${verdict.reasons.join('; ')}`);
        }
      }
    }
    return this;
  }

  /** Appends these whatever evolve says of them; the last verdict. */
  apply(...steps: readonly Given<C>[]): Verdict {
    let last: Verdict | undefined;
    for (const step of steps) for (const event of this.resolve(step)) last = this.append(event);
    if (!last) throw new Error('apply: no event');
    return last;
  }

  /** Someone other than the core writes this; its verdict. */
  happen<K extends EventType>(type: K, data: EventDataMap[K], options: EventOptions = {}): Verdict {
    return this.append(this.event(type, data, options));
  }

  /** One record on the log: evolve applies it (or refuses it) and the core is shown it. */
  append(event: ShoalEvent): Verdict {
    this.log.push(event);
    const verdict = evolve(this.state, event);
    this.verdicts.push(verdict);
    if (event.type === 'TasksCreated' && verdict.status !== 'rejected') this.lastCreated = event.data.tasks.map((t) => t.id);
    this.core.observe(event, verdict, this.state);
    return verdict;
  }

  /** When this event arrives, then … */
  when(event: ShoalEvent): ThenVerdict {
    const state = this.state;
    const before = stateHash(state);
    const verdict = this.append(event);
    const expectStatus = (status: Verdict['status']): void => {
      if (verdict.status !== status) {
        throw new Error(`expected ${event.type} to be ${status}, it was ${verdict.status}: ${verdict.reasons.join('; ')}`);
      }
    };
    const expectReason = (reason: RegExp): void => {
      if (!verdict.reasons.some((r) => reason.test(r))) {
        throw new Error(`expected a reason matching ${reason}, got: ${verdict.reasons.join('; ') || '(none)'}`);
      }
    };
    return {
      thenApplied(check) {
        expectStatus('applied');
        check?.(state);
        return state;
      },
      thenPartial(reason, check) {
        expectStatus('partial');
        expectReason(reason);
        check?.(state);
        return state;
      },
      thenRejected(reason) {
        expectStatus('rejected');
        expectReason(reason);
        const after = stateHash(state);
        if (after !== before) throw new Error(`a rejected ${event.type} changed the state (${before} → ${after})`);
        return state;
      },
      then(check) {
        check(state, verdict);
        return state;
      },
    };
  }

  /** What the core would propose at `now`, appended nowhere. */
  decide(now: Date = new Date(this.clock)): readonly Proposal[] {
    return this.core.decide(this.state, now);
  }

  /** When the core ticks at `now`: it decides, and its runner appends each proposal as the core's writer. */
  whenTicked(now: Date = new Date(this.clock)): Tick {
    const proposals = this.decide(now);
    const events: ShoalEvent[] = [];
    const verdicts: Verdict[] = [];
    for (const proposal of proposals) {
      const event = this.propose(proposal);
      const verdict = this.append(event);
      this.proposed.push({ event, verdict });
      events.push(event);
      verdicts.push(verdict);
    }
    return {
      proposals,
      events,
      verdicts,
      thenApplied() {
        verdicts.forEach((verdict, i) => {
          if (verdict.status !== 'applied') throw new Error(`${proposals[i]?.type} was ${verdict.status}: ${verdict.reasons.join('; ')}`);
        });
        return events;
      },
      thenNothing() {
        if (proposals.length > 0) throw new Error(`expected nothing, the ${events[0]?.by.component} proposed ${proposals.map((p) => p.type).join(', ')}`);
      },
    };
  }

  /** One tick; the records it appended. */
  tick(now?: Date): readonly ShoalEvent[] {
    return this.whenTicked(now).events;
  }

  /** Ticks until the core is quiet; the records it wrote. */
  settle(rounds = 20): ShoalEvent[] {
    const written: ShoalEvent[] = [];
    for (let i = 0; i < rounds; i++) {
      const events = this.tick();
      if (events.length === 0) return written;
      written.push(...events);
    }
    throw new Error(`the ${this.core.component} was still proposing after ${rounds} rounds`);
  }

  /** The record the core's runner would append for a proposal, as the writer the core is now. */
  propose(p: Proposal): ShoalEvent {
    const at = this.stampClock ? { at: new Date(this.clock).toISOString() } : {};
    return this.b.event(p.type, p.data as never, { by: this.core.component, ...this.writer, ...at, ...(p.expect ? { expect: p.expect } : {}) }) as ShoalEvent;
  }

  /** The core becomes active: start-up reconciliation over everything so far. */
  reconcileAll(): this {
    this.core.reconcileAll(this.state);
    return this;
  }

  /** `instance` takes the core's next ownership term, as the runner does before it acts. */
  takeOwnership(instance: string): Verdict {
    const component = this.core.component;
    const term = (this.state.terms.get(component) ?? 0) + 1;
    this.writer = { instance, term };
    return this.happen('OwnershipTaken', { component, term }, { by: component, instance, term });
  }

  /** A new process: the log replayed into a fresh state and a fresh core, then start-up reconciliation. */
  restart(): this {
    this.state = emptyState();
    this.core = this.newCore();
    for (const event of this.log) this.core.observe(event, evolve(this.state, event), this.state);
    return this.reconcileAll();
  }

  task(id: string): Task {
    const task = this.state.tasks.get(id);
    if (!task) throw new Error(`no task ${id}`);
    return task;
  }

  private resolve(step: Given<C>): readonly ShoalEvent[] {
    const events = typeof step === 'function' ? step(this) : step;
    return isEvent(events) ? [events] : events;
  }
}

const isEvent = (x: ShoalEvent | readonly ShoalEvent[]): x is ShoalEvent => !Array.isArray(x);

/** A specification of `core`. */
export const specification = <C extends ComponentCore>(options: SpecificationOptions<C> = {}): Specification<C> => new Specification(options);

/** Given these events, evolve alone: `given(…).when(event).thenRejected(/why/)`. */
export const given = (...history: readonly Given[]): Specification => specification().given(...history);
