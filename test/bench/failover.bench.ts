/**
 * Failover: an end-to-end run (e2e-run.ts) with two scheduler processes; once --kill-at
 * percent (20) of the tasks are assigned, the active scheduler (the one whose /healthz says
 * active) is killed with SIGKILL while tasks are still being placed. Reported, in seconds
 * from the kill: until the standby's /healthz says active, until its OwnershipTaken is on
 * the log, and until the first TasksAssigned of the new term lands on the log; and the
 * whole run's time to every task RUNNING; and how many terms were taken besides the kill's
 * (a lease lost to a pause on the busy machine, and taken again). The processes run with
 * the lease timeout this process's environment gives (SHOAL_LEASE_TIMEOUT_MS). With
 * --compare-lease MS, each run is a pair: a deployment with that lease timeout too, and
 * the ratio of the two takeovers within the pair (the machine's load moves between runs). Services are created one at a time, --spacing
 * (500) ms apart, so that tasks keep arriving after the kill. Sizes are smaller than
 * e2e's by default: --nodes (500), --services (20), --replicas (250); --runs (3), --fleets (2).
 */
import { benchBroker } from './broker';
import { intOption } from './args';
import { health } from './cluster';
import { shoalEntry } from './compiled';
import { shoalSettings } from '../../libs/config/src';
import { groupTiming } from '../../libs/eventlog/src/kafka/group-timing';
import { loadNote, runEndToEnd } from './e2e-run';
import type { RunContext } from './e2e-run';
import { e2eNumbers } from './e2e.bench';
import { publish, result } from './report';
import type { Measure } from './report';

interface Kill {
  readonly at: number;
  readonly term: number;
  /** Tasks assigned when it was killed. */
  readonly assignedBefore: number;
  standbyActiveAt?: number;
}

interface FailoverRun {
  readonly loadAverage: number;
  readonly standbyActive: number;
  readonly ownershipTaken: number;
  readonly firstAssignment: number;
  readonly allRunning: number;
  readonly assignedBefore: number;
  readonly total: number;
  /** OwnershipTaken records beyond one per component and the kill's. */
  readonly extraTerms: number;
  readonly incomplete?: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Kills the active scheduler once enough tasks are assigned, then watches the other one's /healthz until it is active. */
const killer = (killAtPercent: number) => {
  let kill: Kill | undefined;
  let watching: Promise<void> | undefined;
  const during = async ({ cluster, watch, total }: RunContext): Promise<void> => {
    if (kill || watch.assigned.size < (total * killAtPercent) / 100) return;
    const active = await cluster.activeScheduler();
    if (!active) return;
    const standby = cluster.schedulers().find((s) => s.name !== active.name)!;
    cluster.samplePeaks();
    const assignedBefore = watch.assigned.size;
    await active.process.crash();
    const started: Kill = { at: Date.now(), term: active.term ?? 0, assignedBefore };
    kill = started;
    process.stderr.write(`killed ${active.name} (term ${started.term}) with ${assignedBefore} of ${total} tasks assigned\n`);
    watching = (async () => {
      for (;;) {
        const h = await health(standby.healthPort!).catch(() => undefined);
        if (h?.state === 'active') {
          started.standbyActiveAt = Date.now();
          return;
        }
        if (standby.process.exitCode !== null) return;
        await sleep(20);
      }
    })();
  };
  const settled = (): boolean => kill?.standbyActiveAt !== undefined;
  return { during, settled, killed: async (): Promise<Kill | undefined> => (await watching, kill) };
};

export const failoverBench = async (argv: readonly string[]): Promise<void> => {
  const nodes = intOption(argv, 'nodes', 500);
  const services = intOption(argv, 'services', 20);
  const replicas = intOption(argv, 'replicas', 250);
  const runs = intOption(argv, 'runs', 3);
  const fleets = intOption(argv, 'fleets', 2);
  const killAt = intOption(argv, 'kill-at', 20);
  const spacing = intOption(argv, 'spacing', 500);
  if (killAt >= 100) throw new Error('--kill-at is a percentage of the tasks assigned, below 100');
  const stallMs = intOption(argv, 'stall', 120) * 1_000;
  const timing = groupTiming(shoalSettings(process.env).SHOAL_LEASE_TIMEOUT_MS);
  const compareLease = intOption(argv, 'compare-lease', 0);
  const entry = shoalEntry(argv);
  const broker = await benchBroker();
  const results: FailoverRun[] = [];
  const compared: FailoverRun[] = [];
  /** One deployment, its active scheduler killed; with `leaseMs`, its processes run with that lease timeout. */
  const oneRun = async (run: number, leaseMs?: number): Promise<FailoverRun> => {
    const given = process.env.SHOAL_LEASE_TIMEOUT_MS;
    // The processes take their environment from this one's (cluster.ts).
    if (leaseMs !== undefined) process.env.SHOAL_LEASE_TIMEOUT_MS = String(leaseMs);
    try {
      const { during, settled, killed } = killer(killAt);
      const outcome = await runEndToEnd(
        { brokers: broker.brokers, entry, nodes, fleets, schedulers: 2, services, replicas, concurrency: 1, createIntervalMs: spacing, stallMs, pollMs: 20 },
        during,
        settled,
      );
      const kill = await killed();
      if (!kill) throw new Error(`run ${run}: the active scheduler was never killed (${outcome.watch.assigned.size} of ${outcome.total} assigned)`);
      const next = [...outcome.watch.schedulerTerms.values()].filter((t) => t.term > kill.term).sort((a, b) => a.term - b.term)[0];
      const since = (t: number | undefined): number => (t === undefined ? Number.NaN : (t - kill.at) / 1e3);
      const one: FailoverRun = {
        standbyActive: since(kill.standbyActiveAt),
        ownershipTaken: since(next?.takenAt),
        firstAssignment: since(next?.firstAssignedAt),
        allRunning: e2eNumbers(outcome).allRunning,
        assignedBefore: kill.assignedBefore,
        total: outcome.total,
        extraTerms: [...outcome.watch.ownershipTaken.values()].reduce((sum, taken) => sum + taken, 0) - outcome.watch.ownershipTaken.size - 1,
        loadAverage: outcome.loadAverage,
        ...(outcome.incomplete ? { incomplete: outcome.incomplete } : {}),
      };
      process.stderr.write(
        `run ${run}${leaseMs === undefined ? '' : ` (lease ${leaseMs} ms)`}: standby active after ${one.standbyActive.toFixed(2)} s, OwnershipTaken ${one.ownershipTaken.toFixed(2)} s, first TasksAssigned of term ${next?.term ?? '?'} ${one.firstAssignment.toFixed(2)} s after the kill\n`,
      );
      return one;
    } finally {
      if (given === undefined) delete process.env.SHOAL_LEASE_TIMEOUT_MS;
      else process.env.SHOAL_LEASE_TIMEOUT_MS = given;
    }
  };
  try {
    for (let run = 1; run <= runs; run++) {
      // Within a pair, the order alternates: neither lease always runs on the warmer machine.
      if (compareLease > 0 && run % 2 === 0) compared.push(await oneRun(run, compareLease));
      results.push(await oneRun(run));
      if (compareLease > 0 && run % 2 === 1) compared.push(await oneRun(run, compareLease));
    }
  } finally {
    await broker.stop();
  }
  const measures: Measure[] = [
    { name: 'kill → standby /healthz active', unit: 's', runs: results.map((r) => r.standbyActive), better: 'lower' },
    { name: 'kill → OwnershipTaken of the new term on the log', unit: 's', runs: results.map((r) => r.ownershipTaken), better: 'lower' },
    { name: 'kill → first TasksAssigned of the new term on the log', unit: 's', runs: results.map((r) => r.firstAssignment), better: 'lower' },
    { name: 'first create → all tasks RUNNING (kill included)', unit: 's', runs: results.map((r) => r.allRunning), better: 'lower' },
    { name: 'tasks assigned when the scheduler was killed', unit: 'tasks', runs: results.map((r) => r.assignedBefore), better: 'higher' },
    { name: "terms taken besides the kill's (leases lost to pauses)", unit: 'terms', runs: results.map((r) => r.extraTerms), better: 'lower' },
    ...(compareLease > 0
      ? ([
          { name: `with a ${compareLease / 1e3} s lease: kill → first TasksAssigned of the new term`, unit: 's', runs: compared.map((r) => r.firstAssignment), better: 'lower' },
          { name: `with a ${compareLease / 1e3} s lease: terms taken besides the kill's`, unit: 'terms', runs: compared.map((r) => r.extraTerms), better: 'lower' },
          {
            name: `takeover with a ${compareLease / 1e3} s lease / with ${timing.sessionTimeout / 1e3} s (same pair)`,
            unit: '×',
            runs: results.map((r, i) => compared[i]!.firstAssignment / r.firstAssignment),
            better: 'higher',
          },
        ] satisfies Measure[])
      : []),
  ];
  const r = result('failover', 'Failover: the active scheduler killed (SIGKILL) while placing', { nodes, services, replicas, tasks: services * replicas, 'lease timeout (ms)': timing.sessionTimeout, ...(compareLease > 0 ? { 'compared with lease (ms)': compareLease } : {}), 'create spacing (ms)': spacing, 'kill at (% assigned)': killAt, runs, 'processes from': entry.description }, measures);
  const incomplete = results.filter((x) => x.incomplete);
  publish({
    ...r,
    notes: [
      ...(incomplete.length > 0 ? [`INCOMPLETE: ${incomplete.length} of ${runs} runs ended before every task ran (${incomplete.map((x) => x.incomplete).join('; ')}).`] : []),
      `The standby is granted the partition by the Kafka group coordinator once the dead member's session expires: the lease timeout (SHOAL_LEASE_TIMEOUT_MS, ${timing.sessionTimeout / 1e3} s; heartbeats every ${timing.heartbeatInterval} ms). The median takeover, ${r.measures[0]!.median.toFixed(1)} s, is that timeout plus ${(r.measures[0]!.median - timing.sessionTimeout / 1e3).toFixed(1)} s. A holder unheard for longer (a pause) loses its lease too: the new owner's term fences whatever the old one still appends, and the row of terms taken besides the kill's counts those takeovers.`,
      `Sizes are the failover benchmark's own (smaller than e2e's); services are created one at a time so that tasks are still arriving when the scheduler dies.`,
      loadNote(results),
    ],
  });
};
