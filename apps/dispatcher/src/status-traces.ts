/**
 * The end of a traced create: the dispatcher's part. When its view applies a traced
 * TasksAssigned, the assignment goes out to the agents (a `dispatcher assign` span, child
 * of the scheduler's tick), and each task assigned is remembered with that span. The
 * statuses the agents then report come back in TaskStatusesReported records the runner
 * appends; a tick that reports a remembered task is a child of its assignment, and its
 * records carry the trace on. The first report of RUNNING (or of any state past it) ends
 * the task's trace: it is forgotten.
 */
import type { Attributes, SpanContext } from '@opentelemetry/api';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { TaskState, decode, taskStateName } from '@shoal/contracts';
import type { Proposal } from '@shoal/domain';
import type { LogRecord } from '@shoal/eventlog';
import { shoalTracer } from '@shoal/runtime';
import type { TraceCauses } from '@shoal/runtime';

/** Tasks remembered at most (the oldest forgotten first): assignments whose tasks never report are not kept for ever. */
const MAX_TASKS = 100_000;

export class StatusTraces implements TraceCauses {
  private readonly assigned = new Map<string, SpanContext>();

  /** `pushes`: whether this instance is the one that sends assignments to the agents now (the active dispatcher). */
  constructor(private readonly pushes: () => boolean) {}

  observed(record: LogRecord, cause: SpanContext): void {
    if (!record.value.includes('"TasksAssigned"')) return;
    const decoded = decode(record.value);
    if (!decoded.ok || decoded.event.type !== 'TasksAssigned') return;
    const tasks = decoded.event.data.tasks;
    let context = cause;
    if (this.pushes()) {
      const span = shoalTracer().startSpan(
        'dispatcher assign',
        {
          attributes: {
            'shoal.component': 'dispatcher',
            'shoal.record.type': 'TasksAssigned',
            'shoal.log.offset': record.offset,
            'shoal.tasks': tasks.length,
            'shoal.nodes': new Set(tasks.map((task) => task.nodeId)).size,
          },
        },
        trace.setSpanContext(ROOT_CONTEXT, cause),
      );
      span.end();
      context = span.spanContext();
    }
    for (const task of tasks) {
      this.assigned.delete(task.id);
      if (this.assigned.size >= MAX_TASKS) this.assigned.delete(this.assigned.keys().next().value!);
      this.assigned.set(task.id, context);
    }
  }

  causesOf(proposals: readonly Proposal[]): { readonly causes: readonly SpanContext[]; readonly attributes?: Attributes } | undefined {
    if (this.assigned.size === 0) return undefined;
    const causes = new Map<string, SpanContext>();
    const states = new Set<string>();
    for (const proposal of proposals) {
      if (proposal.type !== 'TaskStatusesReported') continue;
      for (const status of proposal.data.statuses) {
        const cause = this.assigned.get(status.id);
        if (!cause) continue;
        causes.set(cause.spanId, cause);
        states.add(taskStateName(status.state));
        if (status.state >= TaskState.RUNNING) this.assigned.delete(status.id);
      }
    }
    if (causes.size === 0) return undefined;
    return { causes: [...causes.values()], attributes: { 'shoal.task.states': [...states] } };
  }
}
