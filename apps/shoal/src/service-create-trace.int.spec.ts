/**
 * One `docker service create`, traced from the API's request to the first task reported
 * RUNNING: the all-in-one (every component with its own view, the dispatcher, the API and
 * simulated nodes over gRPC) on the real broker, and on the embedded log `npm start` uses,
 * with an in-memory exporter. Every span of the create is in one trace, each the child
 * of the one whose record caused it, and the records on the log carry that trace in their
 * headers — only those with a traced cause, and never in the state or its hash.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { TaskState, decode } from '@shoal/contracts';
import { replay } from '@shoal/domain';
import { EmbeddedEventLog, KafkaEventLog } from '@shoal/eventlog';
import type { EventLog, LogRecord } from '@shoal/eventlog';
import { startTracing, traceContextOf } from '@shoal/runtime';
import type { Tracing } from '@shoal/runtime';
import { eventually, testBrokers } from '@shoal/testing';
import { dockerApi } from '../../../libs/testing/src/processes/docker-api';
import { ShoalRunner } from './shoal.runner';

const typesOf = (span: ReadableSpan): readonly string[] => (span.attributes['shoal.record.types'] as string[] | undefined) ?? [];

const logs: Record<string, (dir: string) => Promise<EventLog>> = {
  kafka: () => KafkaEventLog.open({ brokers: testBrokers(), topic: `shoal-test-${randomUUID()}.events`, clientId: 'trace-test' }),
  embedded: (dir) => EmbeddedEventLog.open({ dir: join(dir, 'log'), sync: false }),
};

describe.each(Object.keys(logs))('a traced docker service create, on the %s log', (kind) => {
  let exporter: InMemorySpanExporter;
  let tracing: Tracing;
  let dataDir: string;
  let log: EventLog;
  let runner: ShoalRunner;

  beforeAll(async () => {
    exporter = new InMemorySpanExporter();
    tracing = startTracing({ serviceName: 'shoal-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
    dataDir = mkdtempSync(join(tmpdir(), 'shoal-trace-'));
    log = await logs[kind]!(dataDir);
    runner = new ShoalRunner(log, { dataDir, apiPort: 0, dispatcherPort: 0, simNodes: 2, brokers: [], snapshotEveryMs: 0 });
  });

  afterAll(async () => {
    await runner?.beforeApplicationShutdown();
    await log?.close();
    await tracing?.shutdown();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('follows it from the request through each record it causes to the RUNNING report, in one trace', async () => {
    const { view } = await runner.start();
    await eventually('both simulated nodes are up', () => runner.simulatedNodes === 2, 60_000);
    const untracedEnd = await log.highWaterMark();

    const created = await dockerApi<{ ID: string }>(join(dataDir, 'shoal.sock'), 'POST', '/v1.47/services/create', {
      Name: 'web',
      TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' } },
      Mode: { Replicated: { Replicas: 2 } },
    });
    expect(created.status).toBe(201);
    const serviceId = created.body.ID;
    const running = () => [...view.state.tasks.values()].filter((task) => task.serviceId === serviceId && task.status.state === TaskState.RUNNING);
    await eventually('both tasks run', () => running().length === 2, 60_000);

    // The first RUNNING report ends the trace: its span is the dispatcher's tick that appended it.
    let spans: ReadableSpan[] = [];
    let report: ReadableSpan | undefined;
    await eventually('the RUNNING report is traced', () => {
      spans = exporter.getFinishedSpans();
      report = spans.find((span) => span.name === 'dispatcher tick' && ((span.attributes['shoal.task.states'] as string[] | undefined) ?? []).includes('RUNNING'));
      return report !== undefined;
    });

    const request = spans.find((span) => span.kind === SpanKind.SERVER && span.name === 'POST /services/create');
    expect(request).toBeDefined();
    const traceId = request!.spanContext().traceId;
    expect(request!.attributes).toMatchObject({ 'http.route': '/services/create', 'http.response.status_code': 201, 'shoal.record.types': ['ServiceCreated'] });
    expect(report!.spanContext().traceId).toBe(traceId);

    // From the report up, parent by parent, to the request: each hop the record that caused the next.
    const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
    const path: ReadableSpan[] = [];
    for (let at: ReadableSpan | undefined = report; at; at = at.parentSpanContext ? byId.get(at.parentSpanContext.spanId) : undefined) path.unshift(at);
    expect(path.map((span) => span.name)).toEqual(['POST /services/create', 'orchestrator tick', 'allocator tick', 'scheduler tick', 'dispatcher assign', 'dispatcher tick']);
    expect(path.every((span) => span.spanContext().traceId === traceId)).toBe(true);
    expect(path.map((span) => (span.name === 'dispatcher assign' ? [span.attributes['shoal.record.type']] : typesOf(span)))).toEqual([
      ['ServiceCreated'],
      ['TasksCreated'],
      ['TasksAllocated'],
      ['TasksAssigned'],
      ['TasksAssigned'],
      ['TaskStatusesReported'],
    ]);
    // Causal order: no span starts before the one that caused it.
    const starts = path.map((span) => span.startTime[0] * 1e9 + span.startTime[1]);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));

    // On the log: every record of the create carries the trace; the records before it carry none.
    const records = await log.read(0);
    const before = records.filter((record) => record.offset < untracedEnd);
    expect(before.length).toBeGreaterThan(0);
    expect(before.filter((record) => record.headers !== undefined)).toEqual([]);
    const traced = (type: string): LogRecord[] =>
      records.filter((record) => {
        const decoded = decode(record.value);
        return decoded.ok && decoded.event.type === type && traceContextOf(record.headers)?.traceId === traceId;
      });
    for (const type of ['ServiceCreated', 'TasksCreated', 'TasksAllocated', 'TasksAssigned', 'TaskStatusesReported']) expect(traced(type).length).toBeGreaterThan(0);
    const reported = traced('TaskStatusesReported').flatMap((record) => {
      const decoded = decode(record.value);
      return decoded.ok && decoded.event.type === 'TaskStatusesReported' ? decoded.event.data.statuses.map((status) => status.state) : [];
    });
    expect(reported).toContain(TaskState.RUNNING);

    // Headers never reach the state: the log replayed without them hashes the same.
    const withHeaders = replay(records).hash();
    expect(replay(records.map(({ offset, value }) => ({ offset, value }))).hash()).toBe(withHeaders);
  });
});
