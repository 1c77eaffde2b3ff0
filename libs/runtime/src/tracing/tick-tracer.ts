/**
 * A component's ticks in the traces of the records that caused them. The runner shows the
 * tracer every batch its view applies; a record that carries a trace context (its headers)
 * is a cause of the component's next decision. A tick whose proposals have causes gets a
 * span — the child of the nearest cause (the newest record), linked to the others — and the records it appends
 * carry that span on (EventWriter writes the active span into their headers). A tick with
 * no traced cause gets no span, and its records no header.
 *
 * A component may know causes the records since its last tick do not show (the
 * dispatcher: a status report is caused by the assignment the agent got minutes ago):
 * TraceCauses adds them.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Attributes, Context, Link, Span, SpanContext } from '@opentelemetry/api';
import type { ShoalEvent } from '@shoal/contracts';
import type { Proposal, Verdict } from '@shoal/domain';
import type { LogRecord } from '@shoal/eventlog';
import { traceContextOf } from './trace-headers';
import { shoalTracer, tracingOn } from './tracing';

export interface TraceCauses {
  /** A record the view applied that carries a trace context (not one of this component's own). */
  observed(record: LogRecord, cause: SpanContext): void;
  /** The contexts these proposals carry on beyond the records since the last tick, and attributes for the tick's span. */
  causesOf(proposals: readonly Proposal[]): { readonly causes: readonly SpanContext[]; readonly attributes?: Attributes } | undefined;
}

/** Causes kept between two ticks (a standby's view may apply many traced records before it acts): the newest. */
const MAX_CAUSES = 32;
/** This component's own spans remembered, so that its own records are no cause of its next tick. */
const OWN_SPANS = 64;

const distinct = <T>(values: readonly T[]): T[] => [...new Set(values)];

/** A traced tick: its span, and the context its appends run in. */
export class TickSpan {
  readonly context: Context;

  constructor(readonly span: Span) {
    this.context = trace.setSpan(ROOT_CONTEXT, span);
  }

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  /** Runs `work` with this tick's span active: what it appends carries it, what it logs names it. */
  within<T>(work: () => T): T {
    return context.with(this.context, work);
  }

  /** Ends the span with the appended records' verdicts. */
  end(events: readonly ShoalEvent[], verdicts: readonly Verdict[]): void {
    this.span.setAttributes({
      'shoal.record.types': distinct(events.map((event) => event.type)),
      'shoal.records': events.length,
      'shoal.verdicts.applied': verdicts.filter((verdict) => verdict.status === 'applied').length,
      'shoal.verdicts.rejected': verdicts.filter((verdict) => verdict.status === 'rejected').length,
    });
    this.span.end();
  }

  fail(error: unknown): void {
    this.span.recordException(error instanceof Error ? error : String(error));
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    this.span.end();
  }
}

export class TickTracer {
  /** Causes since the last tick, by traceparent (the records of one batch share one). */
  private readonly pending = new Map<string, SpanContext>();
  private readonly own = new Set<string>();

  constructor(
    private readonly component: string,
    private readonly extra?: TraceCauses,
  ) {}

  /** Takes note of the traced records in a batch the view applied (nothing when tracing is off). */
  observe(records: readonly LogRecord[]): void {
    if (!tracingOn()) return;
    let last: { readonly traceparent: string; readonly cause: SpanContext | undefined } | undefined;
    for (const record of records) {
      const traceparent = record.headers?.traceparent;
      if (traceparent === undefined) continue;
      if (last?.traceparent !== traceparent) last = { traceparent, cause: traceContextOf(record.headers) };
      const cause = last.cause;
      if (!cause || this.own.has(cause.spanId)) continue;
      this.extra?.observed(record, cause);
      if (this.pending.has(traceparent)) continue;
      if (this.pending.size >= MAX_CAUSES) this.pending.delete(this.pending.keys().next().value!);
      this.pending.set(traceparent, cause);
    }
  }

  /**
   * A decision was made: a span for its proposals when they have traced causes, else
   * undefined. Either way the causes seen so far are used up.
   */
  tick(proposals: readonly Proposal[]): TickSpan | undefined {
    if (!tracingOn()) return undefined;
    const extra = proposals.length > 0 ? this.extra?.causesOf(proposals) : undefined;
    const seen = new Set<string>();
    // The parent is the nearest cause: the component's own (extra), else the newest record.
    const causes = [...(extra?.causes ?? []), ...[...this.pending.values()].reverse()].filter((cause) => !seen.has(cause.spanId) && (seen.add(cause.spanId), true));
    this.pending.clear();
    const parent = causes[0];
    if (proposals.length === 0 || !parent) return undefined;
    const links: Link[] = causes.slice(1).map((cause) => ({ context: cause }));
    const span = shoalTracer().startSpan(
      `${this.component} tick`,
      {
        kind: SpanKind.INTERNAL,
        links,
        attributes: {
          'shoal.component': this.component,
          'shoal.record.types': distinct(proposals.map((proposal) => proposal.type)),
          'shoal.causes': causes.length,
          ...extra?.attributes,
        },
      },
      trace.setSpanContext(ROOT_CONTEXT, parent),
    );
    const spanId = span.spanContext().spanId;
    if (this.own.size >= OWN_SPANS) this.own.delete(this.own.values().next().value!);
    this.own.add(spanId);
    return new TickSpan(span);
  }

  /** Runs an untraced tick's work outside any span (its records get no header), a traced one's inside its span. */
  run<T>(traced: TickSpan | undefined, work: () => T): T {
    if (traced) return traced.within(work);
    return tracingOn() ? context.with(ROOT_CONTEXT, work) : work();
  }
}
