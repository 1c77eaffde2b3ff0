/**
 * How long each component's core stops its process to learn a view of C1M's size on taking
 * over, in memory: a ClusterState of `nodes` nodes and `services` × `replicas` RUNNING tasks
 * (c1mRunningState), then for each core, in a fresh instance, reconcileAll at once, and —
 * for a core that has them — its steps (reconcileInSteps) run as the runner runs them
 * (runInSlices, LEARN_SLICE_MS): the longest stretch without a turn, how many
 * there were, and all of them together. Prints one JSON line.
 *
 *   node -r ./bin/register.js test/bench/learn-pause.ts [nodes] [services] [replicas]
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { componentCore } from '../../libs/runtime/src/component-cores';
import { LEARN_SLICE_MS } from '../../libs/runtime/src/component-runner';
import { runInSlices } from '../../libs/runtime/src/in-slices';
import type { CoreComponent } from '../../libs/runtime/src/component-cores';
import { c1mRunningState } from './events';

const [nodes, services, replicas] = process.argv.slice(2).map(Number);
const NODES = nodes || 5_000;
const SERVICES = services || 1_000;
const REPLICAS = replicas || 1_000;

const CORES: readonly CoreComponent[] = ['scheduler', 'orchestrator', 'allocator', 'reaper', 'dispatcher'];

interface Learnt {
  readonly atOnceMs: number;
  readonly inSteps?: { readonly longestMs: number; readonly slices: number; readonly totalMs: number };
}

const main = async (): Promise<void> => {
  const { state } = c1mRunningState(NODES, SERVICES, REPLICAS);
  const out: Record<string, Learnt> = {};
  for (const component of CORES) {
    const atOnce = componentCore(component);
    const t0 = performance.now();
    atOnce.reconcileAll(state);
    const atOnceMs = performance.now() - t0;
    const stepped = componentCore(component);
    const steps = stepped.reconcileInSteps?.(state);
    if (!steps) {
      out[component] = { atOnceMs };
      continue;
    }
    await nextTurn();
    let longestMs = 0;
    let slices = 0;
    let totalMs = 0;
    await runInSlices(steps, LEARN_SLICE_MS, (ms) => {
      longestMs = Math.max(longestMs, ms);
      totalMs += ms;
      slices++;
    });
    out[component] = { atOnceMs, inSteps: { longestMs, slices, totalMs } };
  }
  process.stdout.write(`${JSON.stringify({ nodes: NODES, tasks: SERVICES * REPLICAS, cores: out })}\n`);
};

void main();
