import { join } from 'node:path';
import fc from 'fast-check';
import { replay } from '@shoal/domain';
import { KafkaEventLog } from '@shoal/eventlog';
import { histories, testBrokers } from '@shoal/testing';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import { runShoalCli } from '../../libs/testing/src/processes/spawn-shoal';

// Separate processes on a real broker: the all-in-one process initializes the cluster on
// Kafka; this test appends a random history (poison records included); the CLI, in its own
// process, must reach the very hash this process reaches, and call the log sound.
describe('the audit on Kafka, across processes', () => {
  let deployment: ShoalProcesses;
  beforeEach(() => {
    deployment = ShoalProcesses.onKafka('e2e', { SHOAL_API_PORT: '0' });
  });
  afterEach(() => deployment?.close());

  it('shoal audit verify and replay agree with this process on a log the test wrote', async () => {
    const { env, dataDir, topicPrefix } = deployment;
    const shoal = deployment.start();
    await shoal.waitFor(/Ctrl-C stops it/, 90_000);
    expect(shoal.output).toMatch(/log\s+Kafka/);
    expect(await shoal.stop()).toBe(0);

    const log = await KafkaEventLog.open({ brokers: testBrokers(), topic: `${topicPrefix}.events` });
    // What the all-in-one process wrote: the cluster, its components' terms, the ingress network.
    const written = await log.highWaterMark();
    expect(written).toBeGreaterThanOrEqual(2);
    const [history] = fc.sample(histories(150), { numRuns: 1, seed: 7 });
    await log.append(history!.map((value) => ({ key: 'c1', value })));
    const records = await log.read(0);
    await log.close();
    const mine = replay(records, { keepRefusals: Infinity });
    expect(records.length).toBe(written + history!.length);

    const verify = await runShoalCli(['audit', 'verify', '--json', '--snapshots', join(dataDir, 'snapshots')], env, 120_000);
    expect(verify.stderr).toBe('');
    const report = JSON.parse(verify.stdout) as { agree: boolean; hash: string; highWaterMark: number; tally: unknown; refusals: unknown[]; checks: { name: string; agrees: boolean }[] };
    expect(verify.code).toBe(0);
    expect(report.agree).toBe(true);
    expect(report.hash).toBe(mine.hash());
    expect(report.highWaterMark).toBe(records.length);
    expect(report.tally).toEqual(mine.tally);
    expect(report.refusals).toHaveLength(mine.refusals.length);
    expect(report.checks.map((check) => check.name)).toContainEqual(expect.stringMatching(/^shoal: snapshot at offset \d+ \+ tail$/));
    expect(report.checks.every((check) => check.agrees)).toBe(true);

    const cut = Math.floor(records.length / 3);
    const at = await runShoalCli(['audit', 'replay', '--to', String(cut), '--json'], env, 120_000);
    expect(JSON.parse(at.stdout).hash).toBe(replay(records, { to: cut }).hash());
  });
});
