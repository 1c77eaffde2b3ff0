import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import type { EventLog } from '@shoal/eventlog';
import { ProcessMetrics, newMetricsRegistry } from '@shoal/runtime';
import type { LiveView } from '@shoal/runtime';
import { registerApiMetrics, requestDuration } from '../../apps/api/src/health/api-metrics';
import { AgentCounters, registerDispatcherGauges } from '../../apps/dispatcher/src/dispatcher-metrics';
import { AgentMetrics } from '../../apps/agent/src/agent-metrics';
import { promqlMetricNames } from './promql-names';

interface Panel {
  readonly title: string;
  readonly type: string;
  readonly targets?: readonly { readonly expr: string }[];
}

const dashboard = JSON.parse(readFileSync(join(__dirname, 'shoal-dashboard.json'), 'utf8')) as { panels: Panel[] };
const expressions = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));

/** The series names a registry exposes: a histogram's _bucket, _count and _sum, a summary's quantiles, _count and _sum. */
const seriesNames = (registry: Registry): string[] =>
  registry.getMetricsAsArray().flatMap((metric) => {
    const { name, type } = metric as unknown as { name: string; type: string };
    if (type === 'histogram') return [`${name}_bucket`, `${name}_count`, `${name}_sum`];
    if (type === 'summary') return [name, `${name}_count`, `${name}_sum`];
    return [name];
  });

/** Every name the processes register, collected by starting each one's metric modules as the process does. */
const exported = (): Set<string> => {
  const unused = <T>(): T => ({}) as T;
  // A component process: its view, ticks and whether active.
  const component = new ProcessMetrics();
  // The API process.
  const api = new ProcessMetrics();
  registerApiMetrics(api, unused<LiveView>(), unused<EventLog>());
  requestDuration(api);
  // The dispatcher process.
  const dispatcher = new ProcessMetrics();
  new AgentCounters(dispatcher.registry);
  registerDispatcherGauges(dispatcher.registry, unused);
  // An agent.
  const agent = new AgentMetrics(() => ({ sessions: 0, connected: 0 }), newMetricsRegistry());
  return new Set([component.registry, api.registry, dispatcher.registry, agent.registry].flatMap(seriesNames));
};

describe('infra/observability', () => {
  it('finds the metric names in a PromQL expression, and nothing else', () => {
    expect(promqlMetricNames('histogram_quantile(0.95, sum by (le, route) (rate(shoal_api_request_duration_seconds_bucket{route!="/x",status=~"5.."}[5m])))')).toEqual([
      'shoal_api_request_duration_seconds_bucket',
    ]);
    expect(promqlMetricNames('sum without (instance) (a_total) / on (job) group_left(view) b_seconds offset 5m > bool 0')).toEqual(['a_total', 'b_seconds']);
    expect(promqlMetricNames('max(shoal_records_total{verdict="poison"}) or vector(0)')).toEqual(['shoal_records_total']);
  });

  it('has a dashboard whose every query names only metrics the processes register', () => {
    const names = exported();
    // What the processes register, for a start: Shoal's own and the process's defaults.
    for (const name of ['shoal_view_lag_records', 'shoal_tasks', 'shoal_dispatcher_sessions', 'shoal_agent_sessions', 'process_cpu_seconds_total', 'nodejs_eventloop_lag_p99_seconds']) {
      expect(names).toContain(name);
    }
    expect(expressions.length).toBeGreaterThan(20);
    const unknown = expressions.flatMap(({ panel, expr }) => promqlMetricNames(expr).filter((name) => !names.has(name)).map((name) => `${panel}: ${name}`));
    expect(unknown).toEqual([]);
    // And it shows what an operator looks at first: the lag, the ticks, the API's latency, the time to RUNNING.
    const named = new Set(expressions.flatMap(({ expr }) => promqlMetricNames(expr)));
    for (const name of ['shoal_view_lag_records', 'shoal_component_tick_duration_seconds_bucket', 'shoal_api_request_duration_seconds_bucket', 'shoal_task_time_to_running_seconds_bucket', 'shoal_verdicts_total']) {
      expect(named).toContain(name);
    }
  });

  it('scrapes every process: the API with its token, each component, the agents', () => {
    // No YAML parser among the dependencies: the file is plain enough to read by its lines.
    const config = readFileSync(join(__dirname, 'prometheus.yml'), 'utf8');
    const jobs = config.split(/^ {2}- job_name: /m).slice(1);
    const scraped = jobs.flatMap((job) => [...job.matchAll(/labels: \{ component: ([a-z]+) \}/g)].map((m) => m[1]));
    expect(new Set(scraped)).toEqual(new Set(['api', 'allocator', 'orchestrator', 'scheduler', 'reaper', 'dispatcher', 'agent']));
    expect(jobs.every((job) => /^ {4}metrics_path: \/metrics$/m.test(job))).toBe(true);
    const api = jobs.find((job) => job.startsWith('shoal-api\n'));
    expect(api).toMatch(/authorization:\n\s+type: Bearer\n\s+credentials_file: \S+/);
  });
});
