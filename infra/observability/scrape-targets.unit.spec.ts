/**
 * Every target of infra/observability/prometheus.yml is a process of infra/docker/compose.yaml
 * that serves /metrics on that port: a component or an agent on its SHOAL_HEALTH_PORT, the
 * API on its own port. A target nothing serves would be a dashboard panel with no data.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

interface ComposeService {
  readonly environment?: Readonly<Record<string, string>>;
  readonly ports?: readonly string[];
}
interface ScrapeConfig {
  readonly job_name: string;
  readonly static_configs: readonly { readonly targets: readonly string[] }[];
}

const compose = parse(readFileSync(join(__dirname, '..', 'docker', 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
const prometheus = parse(readFileSync(join(__dirname, 'prometheus.yml'), 'utf8')) as { scrape_configs: ScrapeConfig[] };

/** Where a compose service serves /metrics, by the settings the processes read: the API its own host and port, the rest SHOAL_BIND_HOST:SHOAL_HEALTH_PORT. */
const metricsAddress = (name: string, service: ComposeService): { host?: string; port?: string } => {
  const env = service.environment ?? {};
  return name === 'api' ? { host: env.SHOAL_API_HOST, port: env.SHOAL_API_PORT ?? '8080' } : { host: env.SHOAL_BIND_HOST, port: env.SHOAL_HEALTH_PORT };
};

describe('the Prometheus scrape targets', () => {
  const targets = prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((config) => config.targets.map((target) => ({ job: job.job_name, target }))));

  it('name every Shoal process of the compose file, agents included', () => {
    const scraped = new Set(targets.map(({ target }) => target.split(':')[0]));
    expect([...scraped].sort()).toEqual(['agent-1', 'agent-2', 'allocator', 'api', 'dispatcher', 'orchestrator', 'reaper', 'scheduler']);
  });

  it.each(targets.map(({ job, target }) => [job, target] as const))('%s: %s is served by its compose service on all its interfaces', (_job, target) => {
    const [name, port] = target.split(':') as [string, string];
    const service = compose.services[name];
    expect(service).toBeDefined();
    // Prometheus reaches the container from another one: the process must not bind loopback only.
    expect(metricsAddress(name, service!)).toEqual({ host: '0.0.0.0', port });
  });
});
