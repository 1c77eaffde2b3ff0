import { eventually } from '../../libs/testing/src/eventually';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import type { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';

interface Health {
  readonly component: string;
  readonly state: string;
  readonly term?: number;
  readonly position: number;
}

const health = async (port: number, path: 'healthz' | 'readyz'): Promise<{ status: number; body: Health }> => {
  const response = await fetch(`http://127.0.0.1:${port}/${path}`);
  return { status: response.status, body: (await response.json()) as Health };
};

const untilHealth = (port: number, check: (h: Health) => boolean, timeoutMs = 60_000): Promise<Health> => {
  let last: Health | undefined;
  const matches = async (): Promise<Health | undefined> => {
    last = (await health(port, 'healthz')).body;
    return check(last) ? last : undefined;
  };
  return eventually(`the health on port ${port} matches`, matches, { timeoutMs, everyMs: 100, explain: () => last });
};

// Two instances of one component as separate processes on a real broker: one active, one
// standby; the active one crashes and the standby takes the next term.
describe('a component deployed as its own processes', () => {
  let deployment: ShoalProcesses;
  beforeEach(() => {
    deployment = ShoalProcesses.onKafka('e2e', { SHOAL_HEALTH_PORT: '0' });
  });
  afterEach(() => deployment?.close());

  const start = async (): Promise<{ process: ShoalProcess; port: number }> => {
    const shoal = deployment.cli(['run', 'reaper']);
    const [, port] = await shoal.waitFor(/health on http:\/\/127\.0\.0\.1:(\d+)\/healthz/, 90_000);
    return { process: shoal, port: Number(port) };
  };

  it('`shoal run reaper` twice: one active, one standby; crash the active one and the standby takes term 2', async () => {
    const a = await start();
    const first = await untilHealth(a.port, (h) => h.state === 'active');
    expect(first).toMatchObject({ component: 'reaper', state: 'active', term: 1 });
    expect((await health(a.port, 'readyz')).status).toBe(200);

    const b = await start();
    const standby = await untilHealth(b.port, (h) => h.state === 'standby');
    expect(standby.term).toBeUndefined();
    expect((await health(b.port, 'readyz')).status).toBe(200);
    // The standby replayed what the active one wrote: its term.
    expect(standby.position).toBeGreaterThanOrEqual(1);

    await a.process.crash();
    const taken = await untilHealth(b.port, (h) => h.state === 'active', 90_000);
    expect(taken.term).toBe(2);
  });
});
