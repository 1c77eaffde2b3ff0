import { encode } from '@shoal/contracts';
import { Projection, ReaperCore } from '@shoal/domain';
import type { EmbeddedEventLog } from '@shoal/eventlog';
import { EventBuilder, clusterInit, eventually, nodeDescription, openEmbeddedTestLog } from '@shoal/testing';
import { ComponentHealthController } from './component-health';
import { ComponentRunner } from './component-runner';
import { ProcessMetrics } from './process-metrics';

describe('a component\'s /healthz, /statez, /readyz and /metrics', () => {
  let log: EmbeddedEventLog;
  let closeLog: () => Promise<void>;
  beforeEach(async () => ({ log, close: closeLog } = await openEmbeddedTestLog('shoal-health-')));
  afterEach(() => closeLog());

  const reaper = (metrics: ProcessMetrics): { runner: ComponentRunner; health: ComponentHealthController } => {
    const runner = new ComponentRunner(log, new ReaperCore(), { cluster: 'c1', instance: 'reaper-a', metrics });
    return { runner, health: new ComponentHealthController([runner], log, metrics) };
  };

  it('/statez gives the view\'s position and the hash a replay of the whole log reaches; /readyz names the log\'s end', async () => {
    const b = new EventBuilder();
    await log.append([clusterInit(b), b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') })].map((e) => ({ key: 'c1', value: encode(e) })));
    const { runner, health } = reaper(new ProcessMetrics());
    await runner.start();
    await eventually('the reaper is active', () => runner.state === 'active', { timeoutMs: 10_000, everyMs: 10 });
    // The runner's own OwnershipTaken is on the log too: the hash covers every record before the position.
    const records = await log.read(0);
    await eventually('the view has read the whole log', () => runner.view.position === records.length, { timeoutMs: 10_000, everyMs: 10 });
    const replay = new Projection();
    for (const record of records) replay.apply(record);

    expect(health.stateHash()).toEqual({ component: 'reaper', state: 'active', term: 1, position: records.length, hash: replay.hash() });
    expect(await health.ready()).toEqual({ component: 'reaper', state: 'active', term: 1, position: records.length, logEnd: records.length });
    await runner.stop();
    expect(() => health.live()).toThrow();
  });

  it('/readyz is 503 while the view is behind the log\'s end, with how far', async () => {
    const b = new EventBuilder();
    await log.append([clusterInit(b)].map((e) => ({ key: 'c1', value: encode(e) })));
    const { runner, health } = reaper(new ProcessMetrics());
    await runner.start();
    try {
      await eventually('the reaper is active', () => runner.state === 'active', { timeoutMs: 10_000, everyMs: 10 });
      const end = await log.highWaterMark();
      // A log whose end is past the view (as a log read before the view has caught up).
      const ahead = { highWaterMark: async () => end + 5 } as unknown as EmbeddedEventLog;
      const lagging = new ComponentHealthController([runner], ahead, new ProcessMetrics());
      await expect(lagging.ready()).rejects.toMatchObject({
        status: 503,
        response: { component: 'reaper', state: 'active', logEnd: end + 5, reason: `the view is behind the log: at offset ${runner.view.position} of ${end + 5}` },
      });
      const unreachable = new ComponentHealthController([runner], { highWaterMark: async () => Promise.reject(new Error('broker down')) } as unknown as EmbeddedEventLog, new ProcessMetrics());
      await expect(unreachable.ready()).rejects.toMatchObject({ status: 503, response: { reason: "the log's end cannot be read: broker down" } });
      await eventually('ready', async () => (await health.ready().catch(() => undefined)) !== undefined, { timeoutMs: 10_000, everyMs: 10 });
    } finally {
      await runner.stop();
    }
  });

  it('/metrics counts what the view read by verdict, poison included, its lag, ticks and decisions, and the process\'s own metrics', async () => {
    const b = new EventBuilder();
    await log.append([
      { key: 'c1', value: encode(clusterInit(b)) },
      { key: 'c1', value: '{not json' },
      { key: 'c1', value: '' },
      { key: 'c1', value: encode(b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') })) },
    ]);
    const metrics = new ProcessMetrics();
    const { runner, health } = reaper(metrics);
    await runner.start();
    await eventually('the reaper is active', () => runner.state === 'active', { timeoutMs: 10_000, everyMs: 10 });
    await eventually('the view has read its own OwnershipTaken', async () => runner.view.position === (await log.highWaterMark()), { timeoutMs: 10_000, everyMs: 10 });
    const lines = (await health.metrics()).split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        '# TYPE shoal_records_total counter',
        'shoal_records_total{view="reaper",verdict="poison"} 2',
        'shoal_view_started_at{view="reaper"} 0',
        'shoal_view_halted{view="reaper"} 0',
        'shoal_view_lag_records{view="reaper"} 0',
        'shoal_component_active{component="reaper"} 1',
        'shoal_verdicts_total{view="reaper",outcome="applied",reason="none"} 3',
        '# TYPE shoal_component_tick_duration_seconds histogram',
        '# TYPE process_cpu_user_seconds_total counter',
        '# TYPE nodejs_eventloop_lag_seconds gauge',
      ]),
    );
    expect(lines.find((line) => line.startsWith('shoal_records_total{view="reaper",verdict="applied"}'))).toMatch(/ 3$/);
    await runner.stop();
    // A stopped runner's view is no longer reported.
    expect(await metrics.sample('shoal_view_position', { view: 'reaper' })).toBeUndefined();
  });
});
