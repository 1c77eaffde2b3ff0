import type { Server } from 'node:http';
import { AgentMetrics, agentMetricsAddress } from './agent-metrics';

describe("the agent's /metrics, /healthz and /readyz", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('counts heartbeats and sessions up, beside the process metrics, and is ready once every session is up', async () => {
    const state = { sessions: 3, connected: 2 };
    const metrics = new AgentMetrics(() => state);
    server = await metrics.serve('127.0.0.1', 0);
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    metrics.heartbeat();
    metrics.heartbeat();

    const scraped = await fetch(`${url}/metrics`);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const lines = (await scraped.text()).split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        '# TYPE shoal_agent_heartbeats_total counter',
        'shoal_agent_heartbeats_total 2',
        'shoal_agent_sessions{connected="true"} 2',
        'shoal_agent_sessions{connected="false"} 1',
        '# TYPE process_cpu_seconds_total counter',
        '# TYPE nodejs_eventloop_lag_seconds gauge',
      ]),
    );
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const notReady = await fetch(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ sessions: 3, connected: 2, reason: '1 of 3 sessions are not up with a dispatcher' });
    state.connected = 3;
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, sessions: 3, connected: 3 });
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
    expect((await fetch(`${url}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('serves only when SHOAL_HEALTH_PORT says where, and refuses a port that is not one', () => {
    expect(agentMetricsAddress({})).toBeUndefined();
    expect(agentMetricsAddress({ SHOAL_HEALTH_PORT: '9464' })).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(agentMetricsAddress({ SHOAL_HEALTH_PORT: '0', SHOAL_BIND_HOST: '::1' })).toEqual({ host: '::1', port: 0 });
    expect(() => agentMetricsAddress({ SHOAL_HEALTH_PORT: 'abc' })).toThrow('SHOAL_HEALTH_PORT must be a port number (0–65535), not "abc"');
  });
});
