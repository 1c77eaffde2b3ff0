/**
 * The agent's /metrics, /healthz and /readyz, when it is asked to serve them
 * (SHOAL_HEALTH_PORT, on SHOAL_BIND_HOST, 127.0.0.1 by default; unset: the agent serves
 * nothing, as many agents may share a host): Node's process metrics, the heartbeats its
 * sessions sent and how many of its sessions are up. Live while it runs; ready while every
 * one of its sessions is up with a dispatcher.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { shoalSettings } from '@shoal/config';
import { PROMETHEUS_CONTENT_TYPE, newMetricsRegistry } from '@shoal/runtime';

/** How many sessions the agent runs, and how many are up. */
export interface AgentSessions {
  readonly sessions: number;
  readonly connected: number;
}

export class AgentMetrics {
  readonly registry: Registry;
  private readonly heartbeats: Counter;

  constructor(sessions: () => AgentSessions, registry: Registry = newMetricsRegistry()) {
    this.registry = registry;
    this.heartbeats = new Counter({ name: 'shoal_agent_heartbeats_total', help: "Heartbeats this agent's sessions sent to a dispatcher.", registers: [registry] });
    new Gauge({
      name: 'shoal_agent_sessions',
      help: 'Sessions this agent runs (one per node: one on a host, N when simulating), by whether each is up with a dispatcher (connected) or not.',
      labelNames: ['connected'],
      registers: [registry],
      collect() {
        const { sessions: all, connected } = sessions();
        this.set({ connected: 'true' }, connected);
        this.set({ connected: 'false' }, Math.max(0, all - connected));
      },
    });
    this.sessions = sessions;
  }

  private readonly sessions: () => AgentSessions;

  /** One heartbeat sent. */
  heartbeat(): void {
    this.heartbeats.inc();
  }

  /** Serves /metrics, /healthz and /readyz on host:port (0: any free port); resolves with the server once it listens. */
  async serve(host: string, port: number): Promise<Server> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const json = (status: number, body: unknown): void => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { message: `${req.method} is not served here: GET /metrics, /healthz or /readyz` });
      if (path === '/healthz') return json(200, { status: 'ok', ...this.sessions() });
      if (path === '/readyz') {
        const state = this.sessions();
        const ready = state.sessions > 0 && state.connected === state.sessions;
        return json(ready ? 200 : 503, ready ? { ready: true, ...state } : { ...state, reason: `${state.sessions - state.connected} of ${state.sessions} sessions are not up with a dispatcher` });
      }
      if (path === '/metrics') {
        void this.registry.metrics().then(
          (text) => {
            res.writeHead(200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE });
            res.end(text);
          },
          (error: unknown) => json(500, { message: String(error) }),
        );
        return;
      }
      json(404, { message: `no ${path} here: GET /metrics, /healthz or /readyz` });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return server;
  }
}

/** Where the agent serves its metrics, from the environment: undefined (none) unless SHOAL_HEALTH_PORT is set. */
export const agentMetricsAddress = (env: NodeJS.ProcessEnv): { host: string; port: number } | undefined => {
  const settings = shoalSettings(env);
  return settings.given.has('SHOAL_HEALTH_PORT') ? { host: settings.SHOAL_BIND_HOST, port: settings.SHOAL_HEALTH_PORT } : undefined;
};
