/**
 * The API's metrics as a provider: the process's ProcessMetrics when the host hands one in
 * (API_METRICS: the all-in-one, whose parts share one registry), else the API's own; with
 * the API's families registered on it, and its view unreported when the API closes.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import type { Histogram } from 'prom-client';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { ProcessMetrics } from '@shoal/runtime';
import type { LiveView } from '@shoal/runtime';
import { API_METRICS, API_VIEW } from '../api.tokens';
import { registerApiMetrics, requestDuration } from './api-metrics';

@Injectable()
export class ApiProcessMetrics implements OnModuleDestroy {
  readonly metrics: ProcessMetrics;
  readonly requests: Histogram<'method' | 'route' | 'status'>;
  private readonly unreport: () => void;

  constructor(@Inject(API_VIEW) view: LiveView, @Inject(EVENT_LOG) log: EventLog, @Optional() @Inject(API_METRICS) given?: ProcessMetrics) {
    this.metrics = given ?? new ProcessMetrics();
    this.unreport = registerApiMetrics(this.metrics, view, log);
    this.requests = requestDuration(this.metrics);
  }

  onModuleDestroy(): void {
    this.unreport();
  }
}
