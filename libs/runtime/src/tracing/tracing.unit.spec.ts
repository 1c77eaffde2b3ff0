import { ROOT_CONTEXT, SpanKind, context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConfigurationError } from '@shoal/config';
import type { Proposal } from '@shoal/domain';
import type { EmbeddedEventLog, LogRecord } from '@shoal/eventlog';
import { openEmbeddedTestLog } from '@shoal/testing';
import { EventWriter } from '../event-writer';
import { createLogger } from '../logger';
import { traceContextOf } from './trace-headers';
import { traceFields } from './trace-fields';
import { TickTracer } from './tick-tracer';
import type { TraceCauses } from './tick-tracer';
import { otlpTracesUrl, samplerOf, serviceNameOf, startTracing, startTracingFromEnv, tracingOn } from './tracing';
import type { Tracing } from './tracing';

const A = '00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-aaaaaaaaaaaaaaaa-01';
const B = '00-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-bbbbbbbbbbbbbbbb-01';
const at = (offset: number, traceparent?: string): LogRecord => ({ offset, key: 'c1', value: '{}', ...(traceparent ? { headers: { traceparent } } : {}) });
const proposals: Proposal[] = [{ type: 'TasksRemoved', data: { tasks: [{ id: 't1', reason: 'history' }] } }];

describe('traces, off by default', () => {
  it('start only when OTEL_TRACES_EXPORTER=otlp, and a bad setting stops the start naming it', async () => {
    expect(startTracingFromEnv('scheduler', {})).toBeUndefined();
    expect(startTracingFromEnv('scheduler', { OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracingOn()).toBe(false);
    expect(() => startTracingFromEnv('api', { OTEL_TRACES_EXPORTER: 'jaeger' })).toThrow(/OTEL_TRACES_EXPORTER must be none or otlp, not "jaeger"/);
    expect(() => startTracingFromEnv('api', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(ConfigurationError);
    expect(() => startTracingFromEnv('api', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http/);
    const started = startTracingFromEnv('api', { OTEL_TRACES_EXPORTER: 'OTLP', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' });
    expect(tracingOn()).toBe(true);
    await started!.shutdown();
    expect(tracingOn()).toBe(false);
  });

  it('names the endpoint, the service and the sampler as OpenTelemetry does', () => {
    expect(otlpTracesUrl({})).toBe('http://localhost:4318/v1/traces');
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector:4318/' })).toBe('https://collector:4318/v1/traces');
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/traces' })).toBe('http://b:9999/traces');
    expect(serviceNameOf({}, 'scheduler')).toBe('shoal-scheduler');
    expect(serviceNameOf({}, 'shoal')).toBe('shoal');
    expect(serviceNameOf({ OTEL_SERVICE_NAME: 'edge-api' }, 'api')).toBe('edge-api');
    expect(samplerOf({ OTEL_TRACES_SAMPLER: undefined }).toString()).toMatch(/ParentBased\{root=AlwaysOnSampler/);
    expect(samplerOf({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).toString()).toBe('TraceIdRatioBased{0.25}');
    expect(samplerOf({ OTEL_TRACES_SAMPLER: 'always_off' }).toString()).toBe('AlwaysOffSampler');
  });

  it('while off: no header is written under a span, no span made for a tick, no trace id logged', async () => {
    const { log, close } = await openEmbeddedTestLog('shoal-trace-off-');
    try {
      const writer = new EventWriter(log, 'c1', 'scheduler', 's-1');
      const remote = trace.setSpanContext(ROOT_CONTEXT, traceContextOf({ traceparent: A })!);
      await context.with(remote, () => writer.append([writer.propose('TasksRemoved', { tasks: [{ id: 't1', reason: 'history' }] })]));
      expect((await log.read(0))[0]!.headers).toBeUndefined();
      const ticks = new TickTracer('scheduler');
      ticks.observe([at(0, A)]);
      expect(ticks.tick(proposals)).toBeUndefined();
      expect(context.with(remote, traceFields)).toEqual({});
    } finally {
      await close();
    }
  });
});

describe('traces, on', () => {
  let exporter: InMemorySpanExporter;
  let tracing: Tracing;
  let log: EmbeddedEventLog;
  let closeLog: () => Promise<void>;

  beforeEach(async () => {
    exporter = new InMemorySpanExporter();
    tracing = startTracing({ serviceName: 'shoal-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
    ({ log, close: closeLog } = await openEmbeddedTestLog('shoal-trace-on-'));
  });
  afterEach(async () => {
    await closeLog();
    await tracing.shutdown();
  });

  it('a writer puts the active span on each record it appends, and nothing where no span is active', async () => {
    const writer = new EventWriter(log, 'c1', 'api', 'api-1');
    const span = trace.getTracer('test').startSpan('request', { kind: SpanKind.SERVER });
    await context.with(trace.setSpan(ROOT_CONTEXT, span), () =>
      writer.append([writer.propose('TasksRemoved', { tasks: [{ id: 't1', reason: 'history' }] }), writer.propose('TasksRemoved', { tasks: [{ id: 't2', reason: 'history' }] })]),
    );
    span.end();
    await writer.append([writer.propose('TasksRemoved', { tasks: [{ id: 't3', reason: 'history' }] })]);
    const [first, second, third] = await log.read(0);
    expect(traceContextOf(first!.headers)).toMatchObject({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId });
    expect(second!.headers).toEqual(first!.headers);
    expect(third!.headers).toBeUndefined();
    expect(exporter.getFinishedSpans()[0]!.attributes).toMatchObject({ 'shoal.record.types': ['TasksRemoved'], 'shoal.log.offset.first': 0, 'shoal.log.offset.last': 1 });
  });

  it('a tick is the child of its newest traced cause, linked to the others; its own records, bad headers and untraced records are no cause', () => {
    const ticks = new TickTracer('scheduler');
    expect(ticks.tick(proposals)).toBeUndefined();
    ticks.observe([at(0), at(1, A), at(2, A), at(3, 'garbage'), at(4, B), at(5)]);
    const tick = ticks.tick(proposals)!;
    tick.end([], []);
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe('scheduler tick');
    expect(span!.spanContext().traceId).toBe('b'.repeat(32));
    expect(span!.parentSpanContext?.spanId).toBe('b'.repeat(16));
    expect(span!.links.map((link) => link.context.spanId)).toEqual(['a'.repeat(16)]);
    expect(span!.attributes).toMatchObject({ 'shoal.component': 'scheduler', 'shoal.causes': 2 });

    // Its causes are used up; what it appended itself (carrying its own span) causes nothing more.
    const own = `00-${tick.span.spanContext().traceId}-${tick.span.spanContext().spanId}-01`;
    ticks.observe([at(6, own)]);
    expect(ticks.tick(proposals)).toBeUndefined();
    // A decision with nothing to propose uses its causes up too, and gets no span.
    ticks.observe([at(7, A)]);
    expect(ticks.tick([])).toBeUndefined();
    expect(ticks.tick(proposals)).toBeUndefined();
    expect(exporter.getFinishedSpans()).toHaveLength(1);
  });

  it('a component\'s own causes come first: they make the parent', () => {
    const assignment = traceContextOf({ traceparent: A })!;
    const seen: number[] = [];
    const causes: TraceCauses = { observed: (record) => seen.push(record.offset), causesOf: () => ({ causes: [assignment], attributes: { 'shoal.task.states': ['RUNNING'] } }) };
    const ticks = new TickTracer('dispatcher', causes);
    ticks.observe([at(0, B), at(1), at(2, B)]);
    expect(seen).toEqual([0, 2]);
    ticks.tick(proposals)!.end([], []);
    const [span] = exporter.getFinishedSpans();
    expect(span!.parentSpanContext?.spanId).toBe('a'.repeat(16));
    expect(span!.links.map((link) => link.context.spanId)).toEqual(['b'.repeat(16)]);
    expect(span!.attributes['shoal.task.states']).toEqual(['RUNNING']);
  });

  it('a line logged within a span names its trace and span; one outside names none', () => {
    const lines: string[] = [];
    const logger = createLogger({ component: 'scheduler', level: 'info', output: { isTTY: false, write: (line: string) => lines.push(line) > 0 } });
    const span = trace.getTracer('test').startSpan('tick');
    context.with(trace.setSpan(ROOT_CONTEXT, span), () => logger.info({ offset: 7 }, 'appended 1 records'));
    logger.info('outside');
    span.end();
    const [inside, outside] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(inside).toMatchObject({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, offset: 7, msg: 'appended 1 records' });
    expect(outside).not.toHaveProperty('traceId');
  });
});
