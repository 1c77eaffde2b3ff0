/**
 * End to end through Kafka, as Nomad's C1M harness reports it: every component its own
 * process on a real broker, --nodes (5,000) simulated nodes in --fleets (2) agent
 * processes, --services (100) services × --replicas (1,000) replicas created through the
 * API as fast as it takes them. From the first create to every task RUNNING (times read
 * from the log: TasksAssigned and the RUNNING statuses of TaskStatusesReported):
 * first running, p50, p99, all running, placements per second over time; the records
 * and bytes written to the log; each process's peak RSS (VmHWM). --runs (1), each on a
 * fresh cluster and topic. --sources runs bin/shoal instead of a compiled copy;
 * --no-build reuses the compiled copy; --stall S gives up after S seconds without progress.
 */
import { benchBroker } from './broker';
import { intOption } from './args';
import { shoalEntry } from './compiled';
import { runEndToEnd } from './e2e-run';
import type { RunOutcome } from './e2e-run';
import { quantile, ratesOverTime } from './log-watch';
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
  /** Running tasks per second in each tenth of the run. */
  readonly timeline: readonly number[];
}

export const e2eNumbers = (outcome: RunOutcome): E2eNumbers => {
  const { watch, start } = outcome;
  const running = [...watch.running.values()].sort((a, b) => a - b);
  const assigned = [...watch.assigned.values()].sort((a, b) => a - b);
  const seconds = (t: number | undefined): number => (t === undefined ? Number.NaN : (t - start) / 1e3);
  const allRunning = seconds(running[running.length - 1]);
  const allAssigned = seconds(assigned[assigned.length - 1]);
  return {
    firstRunning: seconds(running[0]),
    p50Running: running.length > 0 ? seconds(quantile(running, 0.5)) : Number.NaN,
    p99Running: running.length > 0 ? seconds(quantile(running, 0.99)) : Number.NaN,
    allRunning,
    allAssigned,
    createsDone: seconds(outcome.createsDone || undefined),
    runningPerSecond: running.length / allRunning,
    assignedPerSecond: assigned.length / allAssigned,
    records: watch.records,
    bytes: watch.bytes,
    highWaterMark: outcome.highWaterMark,
    timeline: running.length > 0 ? ratesOverTime(running, start, running[running.length - 1]!, 10) : [],
  };
};

export const e2eMeasures = (numbers: readonly E2eNumbers[]): Measure[] => {
  const pick = (name: string, unit: string, better: Measure['better'], get: (n: E2eNumbers) => number): Measure => ({ name, unit, better, runs: numbers.map(get) });
  return [
    pick('placements to RUNNING per second (all tasks / time to all running)', 'tasks/s', 'higher', (n) => n.runningPerSecond),
    pick('assignments per second (all tasks / time to all assigned)', 'tasks/s', 'higher', (n) => n.assignedPerSecond),
    pick('first task running', 's', 'lower', (n) => n.firstRunning),
    pick('p50 task running', 's', 'lower', (n) => n.p50Running),
    pick('p99 task running', 's', 'lower', (n) => n.p99Running),
    pick('all tasks running', 's', 'lower', (n) => n.allRunning),
    pick('all tasks assigned', 's', 'lower', (n) => n.allAssigned),
    pick('all creates answered by the API', 's', 'lower', (n) => n.createsDone),
    pick('records written (high-water mark)', 'records', 'lower', (n) => n.highWaterMark),
    pick('bytes written (keys + values)', 'MiB', 'lower', (n) => n.bytes / MIB),
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
  const broker = await benchBroker();
  const outcomes: RunOutcome[] = [];
  try {
    for (let run = 1; run <= runs; run++) {
      const outcome = await runEndToEnd({ brokers: broker.brokers, entry, nodes, fleets, schedulers: 1, services, replicas, concurrency, stallMs });
      outcomes.push(outcome);
      const n = e2eNumbers(outcome);
      process.stderr.write(`run ${run}: ${outcome.watch.running.size} running in ${n.allRunning.toFixed(1)} s (${fmtRate(n.runningPerSecond)}/s)${outcome.incomplete ? ` — INCOMPLETE: ${outcome.incomplete}` : ''}\n`);
    }
  } finally {
    await broker.stop();
  }
  const numbers = outcomes.map(e2eNumbers);
  const measures = [...e2eMeasures(numbers), ...rssMeasures(outcomes)];
  const r = result('e2e', 'End to end through Kafka: created through the API to every task RUNNING', { nodes, services, replicas, tasks: services * replicas, 'agent processes': fleets, runs, 'processes from': entry.description }, measures);
  const rate = r.measures[0]!.median;
  const incomplete = outcomes.filter((o) => o.incomplete);
  publish({
    ...r,
    notes: [
      ...(incomplete.length > 0 ? [`INCOMPLETE: ${incomplete.length} of ${runs} runs ended before every task ran (${incomplete.map((o) => o.incomplete).join('; ')}); their rates count only the tasks that ran.`] : []),
      `Goal ≥ ${fmtRate(GOAL)} tasks/s on this machine: ${rate >= GOAL ? 'met' : 'not met'} (${fmtRate(rate)}/s from first create to all running).`,
      `References (other machines, other fleets; not measured here): ${REFERENCES.join('; ')}. Shoal's median here is ${fmtRate(rate)}/s: ${(rate / 3_750).toFixed(2)}× Nomad C1M, ${(rate / 1_500).toFixed(2)}× C2M, ${(rate / 810).toFixed(2)}× Kubernetes' 810/s floor.`,
      `RUNNING per second over each tenth of the run (run 1): ${numbers[0]?.timeline.map(fmtRate).join(' · ') ?? 'none'}.`,
      `Every process — the components, the agents, Kafka, and this benchmark reading the log — shares the machine's CPUs with the others.`,
    ],
  });
};
