/**
 * What every process's /metrics says about each view of the log it holds (label `view`:
 * api, scheduler, dispatcher, …): the records it has read by evolve's verdict — poison among
 * them, so that an unreadable record on the topic shows in every process, not only in the
 * audit — those read at an older version, where the view is and how far behind the log's
 * end, where it started (a snapshot's offset: the records before it are in no count),
 * whether it has stopped on a record a newer build wrote; the verdicts by outcome and
 * reason code, and how long tasks took from TaskCreated to their first RUNNING report.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import { TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import type { ClusterState, Projection, Verdict } from '@shoal/domain';

/** A view as /metrics reads it, at each scrape. */
export interface ViewSource {
  readonly projection: Projection;
  /** The offset the view started from: its snapshot's, or 0. */
  readonly startedAt: number;
}

export interface ViewRegistration {
  /** The view now (undefined while it is being made: no samples then). */
  readonly view: () => ViewSource | undefined;
  /** The log's end (its high-water mark), for the lag; without it, no lag sample. */
  readonly logEnd?: () => Promise<number>;
}

const VERDICTS = ['applied', 'partial', 'rejected', 'poison'] as const;

/** Seconds from a task's creation to its first RUNNING report: from a second to a quarter of an hour. */
export const TIME_TO_RUNNING_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];

const seconds = (from: string, to: string): number => (Date.parse(to) - Date.parse(from)) / 1000;

export class ViewMetrics {
  private readonly views = new Map<string, ViewRegistration>();
  private readonly verdicts: Counter<'view' | 'outcome' | 'reason'>;
  private readonly timeToRunning: Histogram<'view'>;

  constructor(registry: Registry) {
    const views = this.views;
    const each = (sampled: (name: string, source: ViewSource) => void): void => {
      for (const [name, registration] of views) {
        const source = registration.view();
        if (source) sampled(name, source);
      }
    };
    new Counter({
      name: 'shoal_records_total',
      help: 'Records each view has read from the log since it started, by evolve\'s verdict (poison: a record no build can read).',
      labelNames: ['view', 'verdict'],
      registers: [registry],
      collect() {
        this.reset();
        each((view, { projection }) => {
          for (const verdict of VERDICTS) this.inc({ view, verdict }, projection.tally[verdict]);
        });
      },
    });
    new Counter({
      name: 'shoal_records_upcast_total',
      help: 'Records each view read at an older schema version and upcast.',
      labelNames: ['view'],
      registers: [registry],
      collect() {
        this.reset();
        each((view, { projection }) => this.inc({ view }, projection.tally.upcast));
      },
    });
    new Gauge({
      name: 'shoal_view_position',
      help: 'The offset of the next record each view will apply.',
      labelNames: ['view'],
      registers: [registry],
      collect() {
        this.reset();
        each((view, { projection }) => this.set({ view }, projection.position));
      },
    });
    new Gauge({
      name: 'shoal_view_started_at',
      help: 'The offset each view started from: its snapshot\'s, or 0 after a replay of the whole log. The records before it are in no count.',
      labelNames: ['view'],
      registers: [registry],
      collect() {
        this.reset();
        each((view, { startedAt }) => this.set({ view }, startedAt));
      },
    });
    new Gauge({
      name: 'shoal_view_halted',
      help: '1 when the view has stopped on a record a newer build wrote (it applies nothing from there on), else 0.',
      labelNames: ['view'],
      registers: [registry],
      collect() {
        this.reset();
        each((view, { projection }) => this.set({ view }, projection.halted ? 1 : 0));
      },
    });
    new Gauge({
      name: 'shoal_view_lag_records',
      help: 'Consumer lag: records on the log the view has yet to apply (the log\'s end − its position).',
      labelNames: ['view'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const [view, registration] of views) {
          const source = registration.view();
          if (!source || !registration.logEnd) continue;
          const end = await registration.logEnd().catch(() => undefined);
          if (end !== undefined) this.set({ view }, Math.max(0, end - source.projection.position));
        }
      },
    });
    this.verdicts = new Counter({
      name: 'shoal_verdicts_total',
      help: "Evolve's verdicts on the records each view has read since it started, by outcome (applied, partial, rejected) and reason code (none when applied whole).",
      labelNames: ['view', 'outcome', 'reason'],
      registers: [registry],
    });
    this.timeToRunning = new Histogram({
      name: 'shoal_task_time_to_running_seconds',
      help: 'From a task\'s creation (TaskCreated) to its first RUNNING report, by the agent\'s clock.',
      labelNames: ['view'],
      buckets: TIME_TO_RUNNING_BUCKETS,
      registers: [registry],
    });
  }

  /** Reports `name`'s view from now on; the returned function stops reporting it. */
  add(name: string, registration: ViewRegistration): () => void {
    if (this.views.has(name)) throw new Error(`a view named ${name} is already reported in this process`);
    this.views.set(name, registration);
    return () => {
      if (this.views.get(name) === registration) this.views.delete(name);
    };
  }

  /** What a view tells of each record it applies (LiveView's onEvent): its verdict, and any task that ran for the first time. */
  observer(view: string): (event: ShoalEvent, verdict: Verdict, state: ClusterState) => void {
    return (event, verdict, state) => {
      if (verdict.status === 'poison') return;
      if (verdict.codes.length === 0) this.verdicts.inc({ view, outcome: verdict.status, reason: 'none' });
      for (const reason of new Set(verdict.codes)) this.verdicts.inc({ view, outcome: verdict.status, reason });
      if (event.type !== 'TaskStatusesReported' || verdict.status === 'rejected') return;
      for (const report of event.data.statuses) {
        const task = state.tasks.get(report.id);
        // The report that first set startedAt is the task's first RUNNING.
        if (report.state === TaskState.RUNNING && task?.startedAt === report.at && task.status.state === TaskState.RUNNING && task.status.at === report.at) {
          this.timeToRunning.observe({ view }, Math.max(0, seconds(task.createdAt, task.startedAt)));
        }
      }
    };
  }
}
