/**
 * A record's trace context in its headers, as W3C Trace Context says (`traceparent`,
 * `tracestate`), the way OpenTelemetry's Kafka instrumentations carry it. Only a record
 * with a traced cause gets them: no span, no header. Reading never fails: a record
 * without headers, or with a traceparent that does not parse, simply has no context.
 */
import { ROOT_CONTEXT, context as activeContext, isSpanContextValid, trace } from '@opentelemetry/api';
import type { Context, SpanContext, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { RecordHeaders } from '@shoal/eventlog';
import { tracingOn } from './tracing';

const propagator = new W3CTraceContextPropagator();

const setter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

const getter: TextMapGetter<RecordHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/** The headers that carry `context`'s span on, or undefined when it holds no valid span. */
export const traceHeadersOf = (context: Context): RecordHeaders | undefined => {
  const span = trace.getSpanContext(context);
  if (!span || !isSpanContextValid(span)) return undefined;
  const headers: Record<string, string> = {};
  propagator.inject(context, headers, setter);
  return headers.traceparent ? headers : undefined;
};

/** The span context a record's headers carry (remote), or undefined: none, or not a valid traceparent. */
export const traceContextOf = (headers: RecordHeaders | undefined): SpanContext | undefined => {
  if (headers?.traceparent === undefined) return undefined;
  const span = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, headers, getter));
  return span && isSpanContextValid(span) ? span : undefined;
};

/** The headers for records appended now: the active span's context when tracing is on and a span is active, else none. */
export const activeTraceHeaders = (): RecordHeaders | undefined => (tracingOn() ? traceHeadersOf(activeContext.active()) : undefined);
