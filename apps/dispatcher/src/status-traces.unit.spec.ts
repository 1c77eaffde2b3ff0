import { TraceFlags } from '@opentelemetry/api';
import type { SpanContext } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { TaskState, encode } from '@shoal/contracts';
import type { EventDataMap, EventType, ShoalEvent } from '@shoal/contracts';
import type { Proposal } from '@shoal/domain';
import type { LogRecord } from '@shoal/eventlog';
import { startTracing } from '@shoal/runtime';
import type { Tracing } from '@shoal/runtime';
import { StatusTraces } from './status-traces';

const scheduler: SpanContext = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.SAMPLED, isRemote: true };

const record = <K extends EventType>(offset: number, type: K, data: EventDataMap[K]): LogRecord => {
  const event = { id: `e${offset}`, type, v: type === 'TaskStatusesReported' ? 2 : 1, cluster: 'c1', at: '2026-11-27T00:00:00.000Z', by: { component: 'scheduler', instance: 's-1', term: 1 }, seq: offset, data };
  return { offset, key: 'c1', value: encode(event as unknown as ShoalEvent) };
};

const reported = (...statuses: [string, number][]): Proposal[] => [
  { type: 'TaskStatusesReported', data: { nodeId: 'n1', statuses: statuses.map(([id, state]) => ({ id, state, at: '2026-11-27T00:00:01.000Z', message: '' })) } } as Proposal,
];

describe('the dispatcher\'s part of a trace', () => {
  let exporter: InMemorySpanExporter;
  let tracing: Tracing;
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    tracing = startTracing({ serviceName: 'shoal-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
  });
  afterEach(() => tracing.shutdown());

  it('sends a traced assignment as a span, and its tasks\' reports are its children until the first RUNNING', () => {
    const traces = new StatusTraces(() => true);
    traces.observed(record(7, 'TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: '' }, { id: 't2', nodeId: 'n2', why: '' }] }), scheduler);
    const [assign] = exporter.getFinishedSpans();
    expect(assign!.name).toBe('dispatcher assign');
    expect(assign!.parentSpanContext?.spanId).toBe(scheduler.spanId);
    expect(assign!.spanContext().traceId).toBe(scheduler.traceId);
    expect(assign!.attributes).toMatchObject({ 'shoal.record.type': 'TasksAssigned', 'shoal.log.offset': 7, 'shoal.tasks': 2, 'shoal.nodes': 2 });

    expect(traces.causesOf(reported(['t1', TaskState.STARTING]))).toEqual({ causes: [assign!.spanContext()], attributes: { 'shoal.task.states': ['STARTING'] } });
    expect(traces.causesOf(reported(['t1', TaskState.RUNNING], ['t9', TaskState.RUNNING]))).toEqual({ causes: [assign!.spanContext()], attributes: { 'shoal.task.states': ['RUNNING'] } });
    // t1's trace ended with RUNNING; t2's goes on; an untraced task has none.
    expect(traces.causesOf(reported(['t1', TaskState.COMPLETE]))).toBeUndefined();
    expect(traces.causesOf(reported(['t2', TaskState.FAILED]))?.attributes).toEqual({ 'shoal.task.states': ['FAILED'] });
    expect(traces.causesOf(reported(['t2', TaskState.FAILED]))).toBeUndefined();
  });

  it('a standby sends nothing, but remembers the scheduler\'s span for the tasks; other records are no assignment', () => {
    const traces = new StatusTraces(() => false);
    traces.observed(record(3, 'TasksUnschedulable', { tasks: [{ id: 't1', explain: 'no node' }] }), scheduler);
    traces.observed(record(4, 'TasksAssigned', { tasks: [{ id: 't2', nodeId: 'n1', why: '' }] }), scheduler);
    traces.observed({ offset: 5, key: 'c1', value: '{"type":"TasksAssigned" not json' }, scheduler);
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(traces.causesOf(reported(['t1', TaskState.RUNNING]))).toBeUndefined();
    expect(traces.causesOf(reported(['t2', TaskState.RUNNING]))?.causes).toEqual([scheduler]);
  });
});
