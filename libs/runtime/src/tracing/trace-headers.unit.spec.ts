import { ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { traceContextOf, traceHeadersOf } from './trace-headers';

const span = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED };

describe('a record\'s trace context in its headers', () => {
  it('round-trips a span context through traceparent and tracestate', () => {
    const context = trace.setSpanContext(ROOT_CONTEXT, { ...span, traceState: undefined });
    const headers = traceHeadersOf(context);
    expect(headers).toEqual({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
    expect(traceContextOf(headers)).toEqual({ ...span, isRemote: true });
  });

  it('carries the vendors\' tracestate on, and the unsampled flag', () => {
    const headers = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00', tracestate: 'vendor=a1,other=b2' };
    const read = traceContextOf(headers);
    expect(read).toMatchObject({ traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.NONE, isRemote: true });
    expect(read?.traceState?.serialize()).toBe('vendor=a1,other=b2');
    expect(traceHeadersOf(trace.setSpanContext(ROOT_CONTEXT, read!))).toEqual(headers);
  });

  it('gives no headers where no span is (no context, no header)', () => {
    expect(traceHeadersOf(ROOT_CONTEXT)).toBeUndefined();
    expect(traceHeadersOf(trace.setSpanContext(ROOT_CONTEXT, { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 1 }))).toBeUndefined();
  });

  it('reads no context from a record without headers, or without a traceparent', () => {
    expect(traceContextOf(undefined)).toBeUndefined();
    expect(traceContextOf({})).toBeUndefined();
    expect(traceContextOf({ tracestate: 'vendor=a1' })).toBeUndefined();
  });

  it.each([
    ['garbage', 'not-a-traceparent'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero span id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01'],
    ['upper-case hex', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01'],
    ['an empty value', ''],
  ])('ignores a malformed traceparent (%s) without harm', (_what, traceparent) => {
    expect(() => traceContextOf({ traceparent, tracestate: 'vendor=a1' })).not.toThrow();
    expect(traceContextOf({ traceparent, tracestate: 'vendor=a1' })).toBeUndefined();
  });
});
