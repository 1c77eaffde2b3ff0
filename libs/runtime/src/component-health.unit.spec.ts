import { encode } from '@shoal/contracts';
import { Projection, ReaperCore } from '@shoal/domain';
import type { EmbeddedEventLog } from '@shoal/eventlog';
import { EventBuilder, clusterInit, eventually, nodeDescription, openEmbeddedTestLog } from '@shoal/testing';
import { ComponentHealthController } from './component-health';
import { ComponentRunner } from './component-runner';

describe('a component\'s /healthz, /statez and /readyz', () => {
  let log: EmbeddedEventLog;
  let closeLog: () => Promise<void>;
  beforeEach(async () => ({ log, close: closeLog } = await openEmbeddedTestLog('shoal-health-')));
  afterEach(() => closeLog());

  it('/statez gives the view\'s position and the hash a replay of the whole log reaches', async () => {
    const b = new EventBuilder();
    await log.append([clusterInit(b), b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') })].map((e) => ({ key: 'c1', value: encode(e) })));
    const runner = new ComponentRunner(log, new ReaperCore(), { cluster: 'c1', instance: 'reaper-a' });
    const health = new ComponentHealthController(runner);
    await runner.start();
    await eventually('the reaper is active', () => runner.state === 'active', { timeoutMs: 10_000, everyMs: 10 });
    // The runner's own OwnershipTaken is on the log too: the hash covers every record before the position.
    const records = await log.read(0);
    await eventually('the view has read the whole log', () => runner.view.position === records.length, { timeoutMs: 10_000, everyMs: 10 });
    const replay = new Projection();
    for (const record of records) replay.apply(record);

    expect(health.stateHash()).toEqual({ component: 'reaper', state: 'active', term: 1, position: records.length, hash: replay.hash() });
    expect(health.ready()).toEqual({ component: 'reaper', state: 'active', term: 1, position: records.length });
    await runner.stop();
    expect(() => health.live()).toThrow();
  });
  it('/metrics counts what the view read by verdict, poison included, and says where the view started', async () => {
    const b = new EventBuilder();
    await log.append([
      { key: 'c1', value: encode(clusterInit(b)) },
      { key: 'c1', value: '{not json' },
      { key: 'c1', value: '' },
      { key: 'c1', value: encode(b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') })) },
    ]);
    const runner = new ComponentRunner(log, new ReaperCore(), { cluster: 'c1', instance: 'reaper-a' });
    const health = new ComponentHealthController(runner);
    await runner.start();
    await eventually('the view has read past the poison', () => runner.view.position >= 4, { timeoutMs: 10_000, everyMs: 10 });
    const lines = health.metrics().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        '# HELP shoal_records_total Records the reaper\'s view has read from the log since it started, by evolve\'s verdict.',
        'shoal_records_total{verdict="poison"} 2',
        'shoal_view_started_at 0',
        'shoal_view_halted 0',
      ]),
    );
    expect(lines.find((line) => line.startsWith('shoal_records_total{verdict="applied"}'))).toMatch(/ [2-9]$/);
    await runner.stop();
  });
});
