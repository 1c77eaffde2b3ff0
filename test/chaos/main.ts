/**
 * npm run chaos -- [--minutes N] [--seed S] [--nodes N] [--outage SECONDS] [--bound SECONDS] [--json]
 * npm run chaos -- --cluster 3 [--faults …] …: the broker faults on three KRaft nodes (faults-main.ts).
 * A chaos soak: the fault schedule of the chaos suite (test/e2e/chaos.e2e.spec.ts) round
 * after round for --minutes (default 10), on a broker of its own, then the same checks; prints
 * a report (--json: the whole of it) and exits 1 if any check failed, with every process's
 * output in a folder of the temp dir it names. Not part of `npm test`.
 */
import { join } from 'node:path';
import { intOption } from '../bench/args';
import { runChaos } from './chaos-run';
import { brokerFaultsCommand } from './faults-main';
import type { ChaosReport } from './chaos-run';

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The report as lines: per fault the median and worst recovery, then the checks. */
export const summary = (report: ChaosReport, boundSeconds: number): string[] => {
  const byFault = new Map<string, number[]>();
  for (const f of report.faults) byFault.set(f.fault, [...(byFault.get(f.fault) ?? []), f.recoveredSeconds]);
  const { findings } = report;
  return [
    `chaos: seed ${report.seed}, ${report.rounds} round(s), ${report.faults.length} faults`,
    ...[...byFault].map(([fault, s]) => `  kill -9 ${fault.padEnd(12)} whole again after: median ${median(s).toFixed(1)} s, worst ${Math.max(...s).toFixed(1)} s (${s.length})`),
    `workload: ${report.workload.requests} requests, ${report.workload.acks} writes acknowledged; answers ${JSON.stringify(report.workload.answers)}`,
    `converged: ${report.convergedSeconds === undefined ? `NOT within ${boundSeconds} s` : `${report.convergedSeconds.toFixed(1)} s after the last fault (bound ${boundSeconds} s)`}`,
    `hashes: ${report.agreement ? `${report.agreement.processes} processes on ${report.agreement.hash} at offset ${report.agreement.position}` : 'NO AGREEMENT'}`,
    `log: ${findings.records} records; ${findings.tally.applied} applied, ${findings.tally.partial} partial, ${findings.tally.rejected} rejected, ${findings.tally.poison} poison; ${findings.startFirstPairs} start-first pairs`,
    `  doubled ${findings.doubled.length}, lost ${findings.lost.length}, acknowledged but missing ${findings.unacknowledged.length}`,
    `poison: ${report.poison.written} written (${report.poison.kinds.length} kinds), counted by the audit ${report.poison.auditCounted}; by each process past where its view started: ${report.poison.counts.map((c) => `${c.name} ${c.poison} from ${c.startedAt}`).join(', ')}`,
    `newer version at ${report.future.offset}: ${report.future.haltedProcesses} components stopped there and said so; ${report.future.agreement ? `all on ${report.future.agreement.hash}` : 'NO AGREEMENT'}`,
    report.problems.length === 0 ? 'PASS' : `FAIL:\n${report.problems.map((p) => `  - ${p}`).join('\n')}`,
  ];
};

const main = async (): Promise<number> => {
  const argv = process.argv.slice(2);
  if (argv.includes('--cluster')) return brokerFaultsCommand(argv);
  const minutes = intOption(argv, 'minutes', 10);
  const boundSeconds = intOption(argv, 'bound', 60);
  const report = await runChaos({
    rounds: 1,
    untilMs: minutes * 60_000,
    seed: intOption(argv, 'seed', Date.now() % 100_000),
    nodesPerAgent: intOption(argv, 'nodes', 6),
    brokerOutageMs: intOption(argv, 'outage', 10) * 1_000,
    convergeWithinMs: boundSeconds * 1_000,
    logs: join(__dirname, '..', '..', '.cache', 'test-output', `chaos-${Date.now()}`),
  });
  process.stdout.write(`${argv.includes('--json') ? JSON.stringify(report, null, 2) : summary(report, boundSeconds).join('\n')}\n`);
  return report.problems.length === 0 ? 0 : 1;
};

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(2);
    },
  );
}
