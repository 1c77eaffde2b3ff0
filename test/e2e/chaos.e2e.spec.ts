/**
 * The chaos suite, short: every component as two processes (active and standby) and two
 * APIs on a broker of the run's own, two agent processes of simulated nodes, a workload of
 * creates, scales, updates and removes through the API; kill -9 of each component's active
 * instance in turn, of an API and of the broker; poison on the topic among the records,
 * and a record of a newer version last. Judged afterwards from the log and from every
 * process (test/chaos/chaos-run.ts). `npm run chaos -- --minutes N` runs it longer.
 */
import { join } from 'node:path';
import { runChaos } from '../chaos/chaos-run';
import type { ChaosReport } from '../chaos/chaos-run';
import { summary } from '../chaos/main';

/** Every service converged within this long of the last fault's recovery (see docs/reliability.md). */
const CONVERGE_WITHIN_S = 60;

jest.setTimeout(15 * 60_000);

describe('chaos: kill -9 of every component, an API and the broker under load, poison on the topic', () => {
  let report: ChaosReport;
  beforeAll(async () => {
    report = await runChaos({
      rounds: 1,
      seed: 22,
      convergeWithinMs: CONVERGE_WITHIN_S * 1_000,
      say: (line) => void process.stdout.write(`chaos: ${line}\n`),
      // Kept in the checkout (not the run's temp dir, which CI removes) for the failure to be read.
      logs: join(__dirname, '..', '..', '.cache', 'test-output', `chaos-${Date.now()}`),
    });
    process.stdout.write(`${summary(report, CONVERGE_WITHIN_S).join('\n')}\n`);
  });

  it('killed each component\'s active instance, an API and the broker, and each time the deployment was whole again', () => {
    expect(report.faults.map((f) => f.fault)).toEqual(['allocator', 'orchestrator', 'scheduler', 'reaper', 'dispatcher', 'api', 'broker']);
    expect(report.workload.acks).toBeGreaterThan(10);
  });

  it('converged within the bound after the last fault', () => {
    expect(report.problems.filter((p) => p.startsWith('not converged'))).toEqual([]);
    expect(report.convergedSeconds).toBeLessThanOrEqual(CONVERGE_WITHIN_S);
  });

  it('doubled nothing, lost nothing, and every acknowledged write is on the log', () => {
    expect(report.findings.doubled).toEqual([]);
    expect(report.findings.lost).toEqual([]);
    expect(report.findings.unacknowledged).toEqual([]);
  });

  it('every process holds the state hash a replay from offset 0 reaches', () => {
    expect(report.agreement).toBeDefined();
    expect(report.agreement!.processes).toBe(12);
    expect(report.agreement!.hash).toBe(report.findings.hash);
  });

  it('counted every poison record, in the replay, the audit and every process\'s metrics', () => {
    expect(report.poison.written).toBe(2 * report.poison.kinds.length);
    expect(report.findings.poisonMismatch).toEqual([]);
    expect(report.findings.tally.poison).toBe(report.poison.written);
    expect(report.poison.auditCounted).toBe(report.poison.written);
    // Twelve processes; the APIs replay the whole log, so they count all of it.
    expect(report.poison.counts).toHaveLength(12);
    expect(report.poison.counts.filter((c) => c.name.startsWith('api-')).map((c) => c.poison)).toEqual([report.poison.written, report.poison.written]);
    expect(report.problems.filter((p) => p.includes('/metrics counts'))).toEqual([]);
  });

  it('stopped every process on the record of a newer version, said so, and kept them on one hash', () => {
    expect(report.future.haltedProcesses).toBe(10);
    expect(report.future.agreement?.position).toBe(report.future.offset);
  });

  it('found no other problem, and no process it did not kill exited', () => {
    expect(report.problems).toEqual([]);
  });
});
