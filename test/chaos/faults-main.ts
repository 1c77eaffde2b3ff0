/**
 * npm run chaos -- --cluster 3 [--faults leader,controller,rolling,disk-full] [--seed S] [--nodes N] [--outage SECONDS] [--bound SECONDS] [--json]
 * The broker faults of broker-faults.ts on a three-node KRaft cluster under load; prints a
 * line per fault and exits 1 if any check failed (every process's output then in a folder of
 * the temp dir it names). Needs root (a tmpfs per node for disk-full). Not part of `npm test`.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { intOption } from '../bench/args';
import { BROKER_FAULTS, runBrokerFaults } from './broker-faults';
import type { BrokerFault, BrokerFaultReport } from './broker-faults';

/** `--faults a,b`: the faults to run, in that order; all of them by default. */
export const faultsOption = (argv: readonly string[]): BrokerFault[] => {
  const at = argv.indexOf('--faults');
  if (at < 0) return [...BROKER_FAULTS];
  const names = (argv[at + 1] ?? '').split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(BROKER_FAULTS as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) throw new Error(`--faults takes some of ${BROKER_FAULTS.join(', ')} separated by commas, not "${argv[at + 1] ?? ''}"`);
  return names as BrokerFault[];
};

export const faultSummary = (report: BrokerFaultReport): string[] => [
  `broker faults on 3 KRaft nodes: seed ${report.seed}`,
  ...report.faults.map(
    (f) =>
      `  ${f.fault.padEnd(10)} whole after ${f.wholeSeconds.toFixed(1)} s, converged after ${f.convergedSeconds?.toFixed(1) ?? 'NEVER'} s; ISR during ${JSON.stringify(f.isrDuring ?? [])}, after ${JSON.stringify(f.isrAfter)}; ` +
      `${f.acks} acks, ${f.records} records; ${f.problems.length === 0 ? 'pass' : 'FAIL'}  (${f.detail})`,
  ),
  report.problems.length === 0 ? 'PASS' : `FAIL:\n${report.problems.map((p) => `  - ${p}`).join('\n')}`,
];

export const brokerFaultsCommand = async (argv: readonly string[]): Promise<number> => {
  if (intOption(argv, 'cluster', 3) !== 3) throw new Error('--cluster takes 3: the broker faults run on a cluster of three nodes');
  const boundSeconds = intOption(argv, 'bound', 120);
  const report = await runBrokerFaults({
    faults: faultsOption(argv),
    seed: intOption(argv, 'seed', Date.now() % 100_000),
    nodesPerAgent: intOption(argv, 'nodes', 4),
    outageMs: intOption(argv, 'outage', 10) * 1_000,
    convergeWithinMs: boundSeconds * 1_000,
    logs: join(tmpdir(), `shoal-faults-${Date.now()}`),
  });
  process.stdout.write(`${argv.includes('--json') ? JSON.stringify(report, null, 2) : faultSummary(report).join('\n')}\n`);
  return report.problems.length === 0 ? 0 : 1;
};
