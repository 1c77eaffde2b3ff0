/**
 * npm run bench -- <name> [options] [--json] [--write]
 *   scheduler  SwarmKit's BenchmarkScheduler shapes, Shoal's core and view beside SwarmKit's own scheduler (a Go driver,
 *              test/bench/swarmkit); --runs (3), --quick, --only <text in a shape's name>
 *   replay     rebuild views from a log of --records (1,000,000) records; --runs (3)
 *   verify     the audit proof and `shoal audit verify` on one thread and on --workers (one a core), a log of --records
 *              (200,000) with a signed checkpoint every --every (5,000); --runs (3), --sources, --no-build
 *   memory     bytes per node and per task in each view at --nodes (5,000), --tasks (100,000); --runs (3)
 *   e2e        separate processes on Kafka: --nodes (5,000) simulated nodes, --services (100) × --replicas (1,000)
 *              created through the API to all RUNNING; --runs (1), --fleets (2), --sources, --no-build
 *   failover   an e2e run (smaller) whose active scheduler is killed -9 mid-placement: seconds until the standby places
 *   heartbeats the dispatcher's CPU per heartbeat from --nodes (5,000) sessions at each of --rates (50,250,1000,4000) a second,
 *              streamed and unary; --channels (10), --seconds (10) per rate, --runs (3)
 *   answers    the state at an offset and a time, a restart, a task's and a service's story from the index, docker events, a full
 *              replay (kafkajs and @platformatic/kafka) beside bare consumers, a log of --records (1,000,000); --runs (3)
 *   c1m        Nomad's C1M shape: --nodes (5,000) simulated nodes in --fleets (4) agent processes, --services (1,000) ×
 *              --replicas (1,000) through the API to all RUNNING, or --deadline minutes (45); rates over time as SVG plots,
 *              peak RSS, longest ticks, log bytes per task, the API's latency while it runs; --heap MiB (8,192)
 *   decode     per record of the realistic history: JSON.parse, the shape checks, evolve; for TaskStatusesReported, JSON.parse
 *              beside a binary form read by hand and V8's serializer; --records (200,000), --runs (3)
 *   clusters   one instance each of orchestrator, allocator, scheduler, reaper serving --clusters (1,20,100) clusters, one
 *              partition each, of one service × --replicas (10): seconds to all assigned, RSS, CPU and broker connections
 *              per process and per cluster, a second scheduler's balance, the first's failover; --runs (1)
 * Benchmarks are not tests: they never run in `npm test`.
 */
import { replayBench } from './replay.bench';
import { verifyBench } from './verify.bench';
import { schedulerBench } from './scheduler.bench';
import { memoryBench } from './memory.bench';
import { e2eBench } from './e2e.bench';
import { failoverBench } from './failover.bench';
import { heartbeatsBench } from './heartbeats.bench';
import { answersBench } from './answers.bench';
import { c1mBench } from './c1m.bench';
import { clustersBench } from './clusters.bench';
import { decodeBench } from './decode.bench';

const BENCHES: Record<string, (argv: readonly string[]) => Promise<void>> = {
  replay: replayBench,
  verify: verifyBench,
  scheduler: schedulerBench,
  memory: memoryBench,
  e2e: e2eBench,
  failover: failoverBench,
  heartbeats: heartbeatsBench,
  answers: answersBench,
  c1m: c1mBench,
  clusters: clustersBench,
  decode: decodeBench,
};

const main = async (): Promise<void> => {
  const [name, ...rest] = process.argv.slice(2);
  const bench = name ? BENCHES[name] : undefined;
  if (!bench) {
    process.stderr.write(`usage: npm run bench -- <${Object.keys(BENCHES).join('|')}> [--json] [--write]\n`);
    process.exitCode = 2;
    return;
  }
  await bench(rest);
};

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
