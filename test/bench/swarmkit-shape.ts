/**
 * One shape of SwarmKit's BenchmarkScheduler suite, run by SwarmKit's own scheduler
 * (github.com/moby/swarmkit/v2 v2.0.0) through the Go driver in ./swarmkit: `nodes` ready
 * nodes, `tasks` PENDING tasks, then one tick, timed in two parts:
 *   decideMs   grouping the unassigned tasks and scheduleTaskGroup for each group
 *   commitMs   applySchedulingDecisions, the memdb transactions writing every task ASSIGNED
 *   maxRssMiB  the driver process's peak resident memory
 * `grouping`: 'per-task' is SwarmKit's benchmark (no SpecVersion: each task is a one-off group
 * and scans every node); 'service' gives the tasks one service and SpecVersion, one group.
 * The driver is compiled once into a test binary of SwarmKit's scheduler package (kept under
 * the OS temp dir, rebuilt when the driver, go.mod/go.sum or Go change); each run executes it.
 * Command line: swarmkit-shape.ts <nodes> <tasks> plain|constraints per-task|service [reps]
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type SwarmKitGrouping = 'per-task' | 'service';

export interface SwarmKitShapeTiming {
  /** The middle of the repetitions. */
  readonly decideMs: number;
  readonly commitMs: number;
  readonly decideRuns: readonly number[];
  readonly commitRuns: readonly number[];
  readonly maxRssMiB: number;
}

const MODULE = 'github.com/moby/swarmkit/v2';
const PACKAGE = `${MODULE}/manager/scheduler`;
const BENCH_MODULE = join(__dirname, 'swarmkit');
const DRIVER = join(BENCH_MODULE, 'driver', 'scheduler_driver_test.go');
const WORK = process.env.SHOAL_SWARMKIT_WORKDIR ?? join(tmpdir(), 'shoal-swarmkit-driver');
const BINARY = join(WORK, 'swarmkit-driver.test');

const go = (args: readonly string[]): string =>
  execFileSync('go', args, {
    cwd: BENCH_MODULE,
    env: { ...process.env, GOFLAGS: `-mod=mod ${process.env.GOFLAGS ?? ''}`.trim() },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 16 * 2 ** 20,
  }).trim();

/**
 * Go refuses overlays of files in the module cache, so SwarmKit is copied out of it once and the
 * driver module is pointed at the copy (a replace in a go.mod of its own, passed by -modfile);
 * the overlay then drops the package's own tests and adds the driver.
 */
const build = (): void => {
  const goMod = readFileSync(join(BENCH_MODULE, 'go.mod'), 'utf8');
  const goSum = readFileSync(join(BENCH_MODULE, 'go.sum'), 'utf8');
  const stamp = createHash('sha256').update(go(['version'])).update(goMod).update(goSum).update(readFileSync(DRIVER)).digest('hex');
  const stampFile = join(WORK, 'stamp');
  if (existsSync(BINARY) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;

  const { Dir: source, Version: version } = JSON.parse(go(['mod', 'download', '-json', MODULE])) as { Dir: string; Version: string };
  mkdirSync(WORK, { recursive: true });
  const copy = join(WORK, `swarmkit-${version}`);
  if (!existsSync(join(copy, 'go.mod'))) {
    const partial = `${copy}.partial`;
    rmSync(partial, { recursive: true, force: true });
    execFileSync('cp', ['-R', source, partial]);
    execFileSync('chmod', ['-R', 'u+w', partial]);
    renameSync(partial, copy);
  }
  const schedulerDir = join(copy, 'manager', 'scheduler');
  const replace: Record<string, string> = {};
  for (const file of readdirSync(schedulerDir)) if (file.endsWith('_test.go')) replace[join(schedulerDir, file)] = '';
  replace[join(schedulerDir, 'shoal_driver_test.go')] = DRIVER;
  writeFileSync(join(WORK, 'overlay.json'), JSON.stringify({ Replace: replace }));
  writeFileSync(join(WORK, 'go.mod'), `${goMod}\nreplace ${MODULE} => ${copy}\n`);
  writeFileSync(join(WORK, 'go.sum'), goSum);

  go(['test', '-c', '-tags', 'shoaldriver', '-modfile', join(WORK, 'go.mod'), '-overlay', join(WORK, 'overlay.json'), '-o', `${BINARY}.tmp`, PACKAGE]);
  renameSync(`${BINARY}.tmp`, BINARY);
  writeFileSync(stampFile, stamp);
};

let unavailable: { readonly reason: string | undefined } | undefined;

/**
 * Undefined when SwarmKit's scheduler can be measured here (the driver is then built), else why
 * not (no go, the module not obtainable, the build failing). Checked once per process.
 */
export const swarmKitUnavailable = (): string | undefined => {
  if (!unavailable) {
    try {
      build();
      unavailable = { reason: undefined };
    } catch (err) {
      const e = err as Error & { stderr?: string };
      unavailable = { reason: (e.stderr?.trim() || e.message).slice(0, 2_000) };
    }
  }
  return unavailable.reason;
};

/** Runs one shape in a process of its own; throws when SwarmKit is unavailable or a task is left unplaced. */
export const runSwarmKitShape = (nodes: number, tasks: number, constraints: boolean, grouping: SwarmKitGrouping, reps = 1): SwarmKitShapeTiming => {
  const reason = swarmKitUnavailable();
  if (reason !== undefined) throw new Error(`SwarmKit's scheduler is unavailable: ${reason}`);
  const out = execFileSync(BINARY, ['-test.run', '^TestShoalDriver$'], {
    cwd: WORK,
    env: {
      ...process.env,
      SHOAL_SK_NODES: String(nodes),
      SHOAL_SK_TASKS: String(tasks),
      SHOAL_SK_CONSTRAINTS: constraints ? '1' : '0',
      SHOAL_SK_GROUPING: grouping,
      SHOAL_SK_REPS: String(reps),
    },
    encoding: 'utf8',
    maxBuffer: 16 * 2 ** 20,
  });
  const line = out.split('\n').find((l) => l.startsWith('{'));
  if (line === undefined) throw new Error(`no result from the SwarmKit driver: ${out.slice(0, 2_000)}`);
  const { decideMs, commitMs, decideRuns, commitRuns, maxRssMiB } = JSON.parse(line) as SwarmKitShapeTiming;
  return { decideMs, commitMs, decideRuns, commitRuns, maxRssMiB };
};

if (require.main === module) {
  const [nodesArg, tasksArg, constraintsArg = 'plain', groupingArg = 'per-task', repsArg = '1'] = process.argv.slice(2);
  const nodes = Number(nodesArg);
  const tasks = Number(tasksArg);
  if (!(nodes > 0 && tasks > 0) || !['plain', 'constraints'].includes(constraintsArg) || !['per-task', 'service'].includes(groupingArg)) {
    process.stderr.write('usage: swarmkit-shape.ts <nodes> <tasks> plain|constraints per-task|service\n');
    process.exit(2);
  }
  const reason = swarmKitUnavailable();
  if (reason !== undefined) {
    process.stderr.write(`SwarmKit's scheduler is unavailable: ${reason}\n`);
    process.exit(1);
  }
  const constraints = constraintsArg === 'constraints';
  const grouping = groupingArg as SwarmKitGrouping;
  process.stdout.write(`${JSON.stringify({ nodes, tasks, constraints, grouping, ...runSwarmKitShape(nodes, tasks, constraints, grouping, Number(repsArg)) })}\n`);
}
