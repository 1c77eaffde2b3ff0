/**
 * The scheduler benchmark, beside SwarmKit's own scheduler in the same run: SwarmKit's
 * BenchmarkScheduler* shapes (manager/scheduler/scheduler_test.go) — nodes × PENDING tasks,
 * and the Constraints variants where only every third node can take them — each as one
 * service (one batch) and as a service per task (SwarmKit's benchmark tasks have no spec
 * version: each is scheduled on its own). Each run of a shape is a Shoal process
 * (scheduler-shape.ts) and then a SwarmKit process (swarmkit-shape.ts, SwarmKit v2.0.0 as a
 * Go module), each placing the shape `reps` times after a warm-up and reporting the middle:
 * Shoal's pure decisions and SwarmKit's tick before its memdb commit, the two compared run
 * by run; beside them Shoal through its view and SwarmKit with its commit, and peak memory.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { intOption } from './args';
import { median, publish, result } from './report';
import type { Measure } from './report';
import type { Grouping } from './scheduler-shape';
import { runSwarmKitShape, swarmKitUnavailable } from './swarmkit-shape';

interface ShoalRun {
  readonly coreMs: number;
  readonly viewMs: number;
  readonly maxRssMiB: number;
}

const SHAPES: readonly [nodes: number, tasks: number, constraints: boolean][] = [
  [1_000, 1_000, false],
  [1_000, 10_000, false],
  [1_000, 100_000, false],
  [100_000, 1_000, false],
  [100_000, 100_000, false],
  [1_000, 1_000, true],
  [1_000, 10_000, true],
  [1_000, 100_000, true],
  [5_000, 100_000, true],
];
const GROUPINGS: readonly Grouping[] = ['service', 'per-task'];

/** A task a batch looks at every node for: past this many node visits a shape is left out (SwarmKit's would take hours). */
const MOST_VISITS = 1e9;

const ROOT = join(__dirname, '..', '..');
const k = (n: number): string => (n >= 1_000 ? `${n / 1_000}k` : String(n));
const rate = (tasks: number, ms: number): number => tasks / (ms / 1e3);

/**
 * Repetitions in one process: many of a small shape, whose one placing is a millisecond or
 * a few, so that the middle one is a long-running scheduler's (warm code, not a collection
 * that happened to fall in it); one of a shape that takes a minute.
 */
const repsOf = (nodes: number, tasks: number, grouping: Grouping): number => {
  const size = nodes + tasks;
  const visits = grouping === 'per-task' ? nodes * tasks : size;
  if (size <= 20_000 && visits <= 1e6) return 51;
  return size <= 150_000 && visits <= 1e7 ? 5 : 1;
};

const runShoal = (nodes: number, tasks: number, constraints: boolean, grouping: Grouping, reps: number): ShoalRun => {
  const out = execFileSync(
    process.execPath,
    ['--max-old-space-size=8192', '--expose-gc', '-r', join(ROOT, 'bin', 'register.js'), join(__dirname, 'scheduler-shape.ts'), String(nodes), String(tasks), constraints ? 'constraints' : 'plain', grouping, String(reps)],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 2 ** 20 },
  );
  return JSON.parse(out.trim().split('\n').pop() as string) as ShoalRun;
};

export const schedulerBench = async (argv: readonly string[]): Promise<void> => {
  const runs = intOption(argv, 'runs', 3);
  const quick = argv.includes('--quick');
  const onlyAt = argv.indexOf('--only');
  /** Only the shapes whose name holds this text (e.g. "100k nodes × 1k tasks, one service"). */
  const only = onlyAt >= 0 ? argv[onlyAt + 1] : undefined;
  const unavailable = swarmKitUnavailable();
  if (unavailable !== undefined) throw new Error(`SwarmKit's scheduler cannot be measured here, so no ratio can be: ${unavailable}`);
  const measures: Measure[] = [];
  const notes: string[] = [];
  const verdicts: { name: string; ratio: number }[] = [];
  const left: string[] = [];
  for (const [nodes, tasks, constraints] of SHAPES) {
    for (const grouping of GROUPINGS) {
      const name = `${constraints ? 'constraints, ' : ''}${k(nodes)} nodes × ${k(tasks)} tasks, ${grouping === 'service' ? 'one service' : 'a service per task'}`;
      if ((quick && nodes * tasks > 1e8) || (only !== undefined && !name.includes(only))) continue;
      if (grouping === 'per-task' && nodes * tasks > MOST_VISITS) {
        left.push(name);
        continue;
      }
      const reps = repsOf(nodes, tasks, grouping);
      const shoal: ShoalRun[] = [];
      const swarmKit: ReturnType<typeof runSwarmKitShape>[] = [];
      for (let run = 0; run < runs; run++) {
        shoal.push(runShoal(nodes, tasks, constraints, grouping, reps));
        swarmKit.push(runSwarmKitShape(nodes, tasks, constraints, grouping, reps));
        const [s, g] = [shoal[run] as ShoalRun, swarmKit[run] as ReturnType<typeof runSwarmKitShape>];
        process.stderr.write(`${name}: run ${run + 1}: Shoal core ${s.coreMs.toFixed(1)} ms, SwarmKit decisions ${g.decideMs.toFixed(1)} ms (${reps} reps each)\n`);
      }
      const ratios = shoal.map((s, i) => rate(tasks, s.coreMs) / rate(tasks, (swarmKit[i] as { decideMs: number }).decideMs));
      measures.push(
        { name: `${name} — Shoal core, decisions/s`, unit: 'tasks/s', runs: shoal.map((s) => rate(tasks, s.coreMs)), better: 'higher' },
        { name: `${name} — SwarmKit tick before its commit, decisions/s`, unit: 'tasks/s', runs: swarmKit.map((g) => rate(tasks, g.decideMs)), better: 'higher' },
        { name: `${name} — Shoal core / SwarmKit decisions`, unit: 'ratio', runs: ratios, better: 'higher' },
        { name: `${name} — Shoal through its view, tasks/s`, unit: 'tasks/s', runs: shoal.map((s) => rate(tasks, s.viewMs)), better: 'higher' },
        { name: `${name} — SwarmKit decisions and memdb commit, tasks/s`, unit: 'tasks/s', runs: swarmKit.map((g) => rate(tasks, g.decideMs + g.commitMs)), better: 'higher' },
        { name: `${name} — Shoal peak RSS`, unit: 'MiB', runs: shoal.map((s) => s.maxRssMiB), better: 'lower' },
        { name: `${name} — SwarmKit peak RSS`, unit: 'MiB', runs: swarmKit.map((g) => g.maxRssMiB), better: 'lower' },
      );
      verdicts.push({ name, ratio: median(ratios) });
    }
  }
  const said = (v: { name: string; ratio: number }): string => `${v.name} ${v.ratio.toFixed(2)}×`;
  const below = verdicts.filter((v) => v.ratio < 2);
  notes.push(
    `Shoal's core against SwarmKit's decisions, medians of the runs' ratios: ${verdicts.map(said).join('; ')}. Goal ≥ 2× on every shape: ${below.length === 0 ? 'met' : `not met on ${below.length} (${below.map(said).join('; ')})`}.`,
  );
  if (left.length > 0) {
    notes.push(`Left out: ${left.join('; ')} — every task a batch of its own looks at every node, ${MOST_VISITS.toExponential(0)} node visits and more, which SwarmKit's scheduler takes hours over.`);
  }
  publish(result('scheduler', "Scheduler: PENDING to ASSIGNED beside SwarmKit's own (its BenchmarkScheduler shapes)", { runs, shapes: verdicts.length, 'SwarmKit': 'v2.0.0' }, measures, notes));
};
