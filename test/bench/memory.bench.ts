/**
 * Memory: the bytes each component's view holds per node and per task — the ClusterState
 * every view has, plus what the component's core keeps — replayed from the wire format,
 * at --nodes (5,000) nodes and --tasks (100,000) RUNNING tasks. Each measure is the
 * difference of two fresh processes (nodes only, then nodes and tasks), heap after a full GC.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { intOption } from './args';
import { publish, result } from './report';
import type { Measure } from './report';

const ROOT = join(__dirname, '..', '..');
const VIEWS = ['state', 'allocator', 'orchestrator', 'scheduler', 'dispatcher', 'reaper'] as const;

const heldBytes = (view: string, nodes: number, tasks: number): number => {
  const out = execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', '-r', join(ROOT, 'bin', 'register.js'), join(__dirname, 'memory-shape.ts'), view, String(nodes), String(tasks)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return (JSON.parse(out.trim().split('\n').filter(Boolean).pop() as string) as { bytes: number }).bytes;
};

export const memoryBench = async (argv: readonly string[]): Promise<void> => {
  const nodes = intOption(argv, 'nodes', 5_000);
  const tasks = intOption(argv, 'tasks', 100_000);
  const runs = intOption(argv, 'runs', 3);
  const measures: Measure[] = [];
  for (const view of VIEWS) {
    const perNode: number[] = [];
    const perTask: number[] = [];
    for (let run = 0; run < runs; run++) {
      const nodesOnly = heldBytes(view, nodes, 0);
      const full = heldBytes(view, nodes, tasks);
      perNode.push(nodesOnly / nodes);
      perTask.push((full - nodesOnly) / tasks);
    }
    const label = view === 'state' ? 'ClusterState alone (every view has one)' : `${view}'s view (state + core)`;
    measures.push({ name: `${label} — per node`, unit: 'bytes', runs: perNode, better: 'lower' }, { name: `${label} — per task`, unit: 'bytes', runs: perTask, better: 'lower' });
    process.stderr.write(`${view}: ${Math.round(perNode[0]!)} B/node, ${Math.round(perTask[0]!)} B/task\n`);
  }
  publish(result('memory', `Memory: bytes per node and per task in each component's view`, { nodes, tasks, runs }, measures));
};
