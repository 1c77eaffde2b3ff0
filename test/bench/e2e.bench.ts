/**
 * End to end through Kafka, as Nomad's C1M harness reports it: every component its own
 * process on a real broker, --nodes (5,000) simulated nodes in --fleets (2) agent
 * processes, --services (100) services × --replicas (1,000) replicas created through the
 * API as fast as it takes them. From the first create until the first task, 50%, 99% and
 * all of the tasks asked for were RUNNING at once (times read from the log: TasksAssigned,
 * the statuses of TaskStatusesReported, TaskDesiredStatesChanged), placements per second
 * over time; replacements, nodes reported down and leases taken again; the records
 * and bytes written to the log; each process's peak RSS (VmHWM). --runs (1), each on a
 * fresh cluster and topic. --sources runs bin/shoal instead of a compiled copy;
 * --no-build reuses the compiled copy; --stall S gives up after S seconds without progress;
 * --profile all|api,scheduler,… writes .cpuprofile files (one per thread) into a folder per named process in --profile-dir
 * (.shoal/bench-profiles), summarised by profile-summary.ts.
 */
import { benchBroker } from './broker';
import { intOption } from './args';
import { shoalEntry } from './compiled';
import { loadNote, runEndToEnd } from './e2e-run';
import type { RunOutcome } from './e2e-run';
import { ratesOverTime } from './log-watch';
import { profileFlags } from './profile-summary';
import { publish, result } from './report';
import type { Measure } from './report';

const GOAL = 5_000;
const REFERENCES = [
  'Nomad C1M placed ≈ 3,750 containers/s on 5,000 hosts, C2M ≈ 1,500/s',
  'Kubernetes scheduler_perf floors are 680–810 pods/s at 5,000 nodes',
];
const MIB = 2 ** 20;

/** The numbers of one run, in seconds from the first create unless the name says otherwise. */
export interface E2eNumbers {
  readonly firstAssigned: number;
  readonly firstRunning: number;
  readonly p50Running: number;
  readonly p99Running: number;
  readonly allRunning: number;
  readonly allAssigned: number;
  readonly createsDone: number;
  readonly runningPerSecond: number;
  readonly assignedPerSecond: number;
  readonly records: number;
  readonly bytes: number;
  readonly highWaterMark: number;
  /** Tasks assigned beyond those asked for: replacements (of tasks on nodes that went down, …). */
  readonly replacements: number;
  readonly nodesDown: number;
  /** OwnershipTaken records beyond one per component: leases lost and taken again. */
  readonly retakes: number;
  /** Running tasks per second in each tenth of the run. */
  readonly timeline: readonly number[];
}

export const e2eNumbers = (outcome: RunOutcome): E2eNumbers => {
  const { watch, start, total } = outcome;
  const firstTimes = [...watch.running.values()].sort((a, b) => a - b);
  const assigned = [...watch.assigned.values()].sort((a, b) => a - b);
  const seconds = (t: number | undefined): number => (t === undefined ? Number.NaN : (t - start) / 1e3);
  /** When q of the tasks asked for were RUNNING at once. */
  const share = (q: number): number => seconds(watch.reached[Math.max(1, Math.ceil(q * total)) - 1]);
  const allRunning = share(1);
  const allAssigned = seconds(assigned[Math.min(total, assigned.length) - 1]);
  return {
    firstAssigned: seconds(assigned[0]),
    firstRunning: share(0),
    p50Running: share(0.5),
    p99Running: share(0.99),
    allRunning,
    allAssigned,
    createsDone: seconds(outcome.createsDone || undefined),
    runningPerSecond: total / allRunning,
    assignedPerSecond: total / allAssigned,
    records: watch.records,
    bytes: watch.bytes,
    highWaterMark: outcome.highWaterMark,
    replacements: Math.max(0, watch.assigned.size - total),
    nodesDown: watch.nodesDown,
    retakes: [...watch.ownershipTaken.values()].reduce((sum, n) => sum + n - 1, 0),
    timeline: firstTimes.length > 0 ? ratesOverTime(firstTimes, start, firstTimes[firstTimes.length - 1]!, 10) : [],
  };
};

export const e2eMeasures = (numbers: readonly E2eNumbers[]): Measure[] => {
  const pick = (name: string, unit: string, better: Measure['better'], get: (n: E2eNumbers) => number): Measure => ({ name, unit, better, runs: numbers.map(get) });
  return [
    pick('placements to RUNNING per second (all tasks / time to all running)', 'tasks/s', 'higher', (n) => n.runningPerSecond),
    pick('assignments per second (tasks asked for / time until as many were assigned)', 'tasks/s', 'higher', (n) => n.assignedPerSecond),
    pick('first task assigned', 's', 'lower', (n) => n.firstAssigned),
    pick('first task running', 's', 'lower', (n) => n.firstRunning),
    pick('50% of the tasks running', 's', 'lower', (n) => n.p50Running),
    pick('99% of the tasks running', 's', 'lower', (n) => n.p99Running),
    pick('all tasks running', 's', 'lower', (n) => n.allRunning),
    pick('as many tasks assigned as asked for', 's', 'lower', (n) => n.allAssigned),
    pick('all creates answered by the API', 's', 'lower', (n) => n.createsDone),
    pick('records written (high-water mark)', 'records', 'lower', (n) => n.highWaterMark),
    pick('bytes written (keys + values)', 'MiB', 'lower', (n) => n.bytes / MIB),
    pick('tasks assigned beyond those asked for (replacements)', 'tasks', 'lower', (n) => n.replacements),
    pick('nodes reported down during the run', 'nodes', 'lower', (n) => n.nodesDown),
    pick('component leases lost and taken again', 'terms', 'lower', (n) => n.retakes),
  ];
};

export const rssMeasures = (outcomes: readonly RunOutcome[]): Measure[] => {
  const names = [...new Set(outcomes.flatMap((o) => [...o.peakRss.keys()]))];
  return names.map((name) => ({
    name: `peak RSS: ${name}`,
    unit: 'MiB',
    better: 'lower' as const,
    runs: outcomes.map((o) => (o.peakRss.get(name) ?? Number.NaN) / MIB),
  }));
};

const fmtRate = (n: number): string => Math.round(n).toLocaleString('en-US');

export const e2eBench = async (argv: readonly string[]): Promise<void> => {
  const nodes = intOption(argv, 'nodes', 5_000);
  const services = intOption(argv, 'services', 100);
  const replicas = intOption(argv, 'replicas', 1_000);
  const runs = intOption(argv, 'runs', 1);
  const fleets = intOption(argv, 'fleets', 2);
  const concurrency = intOption(argv, 'concurrency', 4);
  const stallMs = intOption(argv, 'stall', 120) * 1_000;
  const entry = shoalEntry(argv);
  const flags = profileFlags(argv);
  const broker = await benchBroker();
  const outcomes: RunOutcome[] = [];
  try {
    for (let run = 1; run <= runs; run++) {
      const outcome = await runEndToEnd({ brokers: broker.brokers, entry, flags, nodes, fleets, schedulers: 1, services, replicas, concurrency, stallMs });
      outcomes.push(outcome);
      const n = e2eNumbers(outcome);
      process.stderr.write(`run ${run}: ${outcome.watch.live.size} running in ${n.allRunning.toFixed(1)} s (${fmtRate(n.runningPerSecond)}/s)${outcome.incomplete ? ` — INCOMPLETE: ${outcome.incomplete}` : ''}\n`);
    }
  } finally {
    await broker.stop();
  }
  const numbers = outcomes.map(e2eNumbers);
  const measures = [...e2eMeasures(numbers), ...rssMeasures(outcomes)];
  const reduced = nodes !== 5_000 || services * replicas !== 100_000 ? ` — reduced size (${nodes.toLocaleString('en-US')} nodes, ${(services * replicas).toLocaleString('en-US')} tasks), not the issue's 5,000 nodes × 100,000 tasks` : '';
  const r = result('e2e', `End to end through Kafka: created through the API to every task RUNNING${reduced}`, { nodes, services, replicas, tasks: services * replicas, 'agent processes': fleets, runs, 'processes from': entry.description }, measures);
  const rate = r.measures[0]!.median;
  const incomplete = outcomes.filter((o) => o.incomplete);
  publish({
    ...r,
    notes: [
      ...(incomplete.length > 0 ? [`INCOMPLETE: ${incomplete.length} of ${runs} runs ended before every task ran (${incomplete.map((o) => o.incomplete).join('; ')}); the times of what was never reached are NaN.`] : []),
      `Goal ≥ ${fmtRate(GOAL)} tasks/s on this machine: ${rate >= GOAL ? 'met' : 'not met'} (${fmtRate(rate)}/s from first create to all running).`,
      `References (other machines, other fleets; not measured here): ${REFERENCES.join('; ')}. Shoal's median here is ${fmtRate(rate)}/s: ${(rate / 3_750).toFixed(2)}× Nomad C1M, ${(rate / 1_500).toFixed(2)}× C2M, ${(rate / 810).toFixed(2)}× Kubernetes' 810/s floor.`,
      `RUNNING per second over each tenth of the run (run 1): ${numbers[0]?.timeline.map(fmtRate).join(' · ') ?? 'none'}.`,
      loadNote(outcomes),
    ],
  });
};
