/**
 * The trace a log line was written under: `traceId` and `spanId` of the active span, when
 * tracing is on and a span is active (an API request, a component's traced tick).
 */
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import { tracingOn } from './tracing';

/** A new object each time: pino merges the line's own fields into it. */
export const traceFields = (): Record<string, string> => {
  if (!tracingOn()) return {};
  const span = trace.getSpanContext(context.active());
  return span && isSpanContextValid(span) ? { traceId: span.traceId, spanId: span.spanId } : {};
};
