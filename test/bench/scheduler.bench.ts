/**
 * The scheduler benchmark: SwarmKit's BenchmarkScheduler* shapes (manager/scheduler/
 * scheduler_test.go) — nodes × PENDING tasks of one service, and the Constraints variants
 * where only every third node can take the tasks. Each shape runs --runs times, each run in
 * a fresh process (scheduler-shape.ts); medians of placements per second in the pure core
 * and through the scheduler's view, and the peak memory.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { intOption } from './args';
import { median, publish, result } from './report';
import type { Measure } from './report';

interface ShapeRun {
  readonly nodes: number;
  readonly tasks: number;
  readonly constraints: boolean;
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

const ROOT = join(__dirname, '..', '..');
const k = (n: number): string => (n >= 1_000 ? `${n / 1_000}k` : String(n));

const runShape = (nodes: number, tasks: number, constraints: boolean): ShapeRun => {
  const out = execFileSync(
    process.execPath,
    ['--max-old-space-size=8192', '-r', join(ROOT, 'bin', 'register.js'), join(__dirname, 'scheduler-shape.ts'), String(nodes), String(tasks), constraints ? 'constraints' : 'plain'],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 2 ** 20 },
  );
  return JSON.parse(out.trim().split('\n').pop() as string) as ShapeRun;
};

export const schedulerBench = async (argv: readonly string[]): Promise<void> => {
  const runs = intOption(argv, 'runs', 3);
  const only = argv.includes('--quick') ? SHAPES.filter(([n, t]) => n * t <= 1e8 && t <= 10_000) : SHAPES;
  const measures: Measure[] = [];
  const notes: string[] = [];
  for (const [nodes, tasks, constraints] of only) {
    const name = `${constraints ? 'constraints, ' : ''}${k(nodes)} nodes × ${k(tasks)} tasks`;
    const results: ShapeRun[] = [];
    for (let run = 0; run < runs; run++) {
      results.push(runShape(nodes, tasks, constraints));
      process.stderr.write(`${name}: run ${run + 1}: core ${results[run]!.coreMs.toFixed(0)} ms, view ${results[run]!.viewMs.toFixed(0)} ms\n`);
    }
    measures.push(
      { name: `${name} — core, placements/s`, unit: 'tasks/s', runs: results.map((r) => tasks / (r.coreMs / 1e3)), better: 'higher' },
      { name: `${name} — through the view, placements/s`, unit: 'tasks/s', runs: results.map((r) => tasks / (r.viewMs / 1e3)), better: 'higher' },
      { name: `${name} — PENDING → all ASSIGNED (view)`, unit: 'ms', runs: results.map((r) => r.viewMs), better: 'lower' },
      { name: `${name} — peak RSS`, unit: 'MiB', runs: results.map((r) => r.maxRssMiB), better: 'lower' },
    );
    if (nodes === 5_000 && tasks === 100_000) {
      const rate = median(results.map((r) => tasks / (r.viewMs / 1e3)));
      notes.push(`At 5,000 nodes the scheduler places ${Math.round(rate).toLocaleString('en-US')} tasks/s through its view (Kubernetes' scheduler_perf floor at 5,000 nodes: 680–810 pods/s; Nomad C1M: about 3,750 containers/s end to end).`);
    }
  }
  publish(result('scheduler', 'Scheduler: PENDING to ASSIGNED (SwarmKit\'s BenchmarkScheduler shapes)', { runs, shapes: only.length }, measures, notes));
};
