/**
 * C1M, after Nomad's: --nodes (5,000) simulated nodes in --fleets (4) agent processes,
 * --services (1,000) × --replicas (1,000) created through the API, every component its own
 * process on a Kafka broker (KAFKA_BROKERS, else a local one). Reported: first task, 50%,
 * 99% and all tasks RUNNING at once (from the log, as the e2e benchmark reads it); assignments
 * and first RUNNING statuses per second over time, drawn as SVG plots; every process's peak
 * RSS (VmHWM) and CPU seconds; each component's longest tick (the bucket of
 * shoal_component_tick_duration_seconds that holds it) and each process's longest event
 * loop delay (nodejs_eventloop_lag_max_seconds, scraped every --scrape-ms); records and
 * bytes written per task placed; the API's latency for `docker service ls`
 * (GET /services?status=true) and `docker service ps` of one service (GET /tasks filtered by
 * service), asked one after the other every --probe-ms while it runs.
 *
 * The run stops when every task runs, after --deadline minutes (45) from the first create,
 * after --stall seconds (180) without a new RUNNING task, or when the machine's available
 * memory falls below --min-free-mib (2,560) before the kernel has to kill anything: a
 * partial run reports how far it got. --heap MiB (8192; 0: node's default) is each process's --max-old-space-size (in NODE_OPTIONS).
 * --write keeps docs/benchmarks/c1m.json and draws docs/benchmarks/c1m-rate.svg and
 * c1m-running.svg; without it the plots go to .shoal/bench-logs/.
 *
 * Once every task runs (unless --no-after): one service scaled from --replicas to twice as
 * many, timed until the new tasks all run; then each component restarted in turn (SIGTERM,
 * up to a minute to stop while it saves its view's snapshot, started again as a supervisor
 * would), timed to stop, then until its /readyz answers 200 and until it is active again.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LocalKafkaBroker } from '../../infra/kafka/broker';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { intOption } from './args';
import { gcPauses, largestBucket, parseProm, perSecond, quantile, sampleValue, since, widerBounds, widerGc } from './c1m-measures';
import type { Bounds, GcPauses, PromSample } from './c1m-measures';
import { BenchCluster, peakRss, processCpu } from './cluster';
import { shoalEntry } from './compiled';
import { e2eMeasures, e2eNumbers } from './e2e.bench';
import type { E2eNumbers } from './e2e.bench';
import type { RunOutcome } from './e2e-run';
import { LogWatch } from './log-watch';
import { lineChart } from './plot';
import { profileFlags } from './profile-summary';
import { publish, result } from './report';
import type { Measure } from './report';

const ROOT = join(__dirname, '..', '..');
const MIB = 2 ** 20;
const COMPONENTS = ['api', 'allocator', 'orchestrator', 'scheduler', 'dispatcher', 'reaper'];
const NOMAD = 'Nomad C1M (HashiCorp, 2020): 1,000,000 containers on 5,000 hosts in under 5 minutes (≈ 3,750/s), on a fleet of servers — another machine and another fleet, not measured here';

/** The machine's MemAvailable in bytes (Infinity where /proc/meminfo cannot tell). */
const memAvailable = (): number => {
  try {
    const kb = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1];
    return kb === undefined ? Number.POSITIVE_INFINITY : Number(kb) * 1024;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const say = (line: string): void => void process.stderr.write(`${line}\n`);
const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n));

interface Broker {
  readonly brokers: string[];
  readonly pid?: number;
  stop(): Promise<void>;
}

const startBroker = async (): Promise<Broker> => {
  const given = (process.env.KAFKA_BROKERS ?? '').split(',').map((b) => b.trim()).filter(Boolean);
  if (given.length > 0) return { brokers: given, stop: async () => undefined };
  say('starting a local Kafka broker (set KAFKA_BROKERS to use another)…');
  const broker = await LocalKafkaBroker.start();
  return { brokers: broker.brokers, pid: broker.pid, stop: () => broker.stop() };
};

interface Probe {
  readonly at: number;
  readonly ms: number;
  readonly ok: boolean;
}

/** What the loops beside the run collected. */
interface Samples {
  readonly creates: number[];
  readonly serviceLs: Probe[];
  readonly servicePs: Probe[];
  /** Component → bounds on its longest tick, decide to verdicts (from its last scrape: the histogram is cumulative). */
  readonly ticks: Map<string, Bounds>;
  /** Component → bounds on its core's longest decision: the part of a tick that holds the event loop. */
  readonly decisions: Map<string, Bounds>;
  /** Process → longest event loop delay seen in any scrape interval (s). */
  readonly loopLag: Map<string, number>;
  /** Process → its garbage collections since its first scrape. */
  readonly gc: Map<string, GcPauses>;
  readonly load: number[];
  readonly cpu: Map<string, number>;
  readonly peaks: Map<string, number>;
}

const createServices = async (socket: string, services: number, replicas: number, concurrency: number, samples: Samples, stopped: () => boolean): Promise<number> => {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < services && !stopped()) {
      const i = next++;
      const t0 = performance.now();
      const created = await dockerApi(socket, 'POST', '/v1.47/services/create', {
        Name: `c1m-${i + 1}`,
        TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' }, RestartPolicy: { Condition: 'any', Delay: 0 } },
        Mode: { Replicated: { Replicas: replicas } },
      });
      samples.creates.push(performance.now() - t0);
      if (created.status !== 201) throw new Error(`creating service ${i + 1} answered ${created.status}: ${JSON.stringify(created.body)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, services) }, worker));
  return Date.now();
};

/** `docker service ls` and `docker service ps c1m-1`, one after the other, every `everyMs`, until `done`. */
const probeApi = async (socket: string, everyMs: number, samples: Samples, done: () => boolean): Promise<void> => {
  const time = async (path: string, into: Probe[]): Promise<void> => {
    const t0 = performance.now();
    const answer = await dockerApi(socket, 'GET', path).catch(() => ({ status: 0 }));
    into.push({ at: Date.now(), ms: performance.now() - t0, ok: answer.status === 200 });
  };
  const ps = `/v1.47/tasks?filters=${encodeURIComponent(JSON.stringify({ service: ['c1m-1'] }))}`;
  while (!done()) {
    await time('/v1.47/services?status=true', samples.serviceLs);
    await time(ps, samples.servicePs);
    await sleep(everyMs);
  }
};

const scrape = async (url: string): Promise<string | undefined> => {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(30_000) });
    return answer.ok ? await answer.text() : undefined;
  } catch {
    return undefined;
  }
};

/** Each component's /metrics (and the API's, on its socket) every `everyMs`, until `done`. */
const scrapeMetrics = async (cluster: BenchCluster, everyMs: number, samples: Samples, done: () => boolean): Promise<void> => {
  // The first scrape of each process is the baseline: its event loop's largest delay and its ticks so far are the start's, not the run's.
  const baseline = new Map<string, PromSample[]>();
  const take = (name: string, text: string | undefined): void => {
    if (text === undefined) return;
    const parsed = parseProm(text);
    const base = baseline.get(name);
    if (!base) {
      baseline.set(name, parsed);
      return;
    }
    const lag = sampleValue(parsed, 'nodejs_eventloop_lag_max_seconds');
    if (lag !== undefined && Number.isFinite(lag)) samples.loopLag.set(name, Math.max(lag, samples.loopLag.get(name) ?? 0));
    const gc = gcPauses(since(parsed, base));
    if (gc) samples.gc.set(name, widerGc(samples.gc.get(name), gc));
    for (const [component, bounds] of largestBucket(since(parsed, base), 'shoal_component_tick_duration_seconds', 'component')) samples.ticks.set(component, widerBounds(samples.ticks.get(component), bounds));
    for (const [component, bounds] of largestBucket(since(parsed, base), 'shoal_component_decide_duration_seconds', 'component')) samples.decisions.set(component, widerBounds(samples.decisions.get(component), bounds));
  };
  while (!done()) {
    for (const m of cluster.members) {
      if (m.healthPort === undefined || m.process.exitCode !== null) continue;
      take(m.name, await scrape(`http://127.0.0.1:${m.healthPort}/metrics`));
    }
    const api = await dockerApi<string>(cluster.socket, 'GET', '/metrics').catch(() => undefined);
    take('api', api?.status === 200 && typeof api.body === 'string' ? api.body : undefined);
    await sleep(everyMs);
  }
};

const sampleProcesses = (cluster: BenchCluster, broker: Broker, samples: Samples): void => {
  cluster.samplePeaks();
  for (const [name, peak] of cluster.peakRss()) samples.peaks.set(name, peak);
  const kafka = peakRss(broker.pid);
  if (kafka !== undefined) samples.peaks.set('kafka', kafka);
  samples.peaks.set('bench (reads the log)', process.resourceUsage().maxRSS * 1024);
  for (const m of cluster.members) {
    if (m.process.pid === undefined || m.process.exitCode !== null) continue;
    try {
      samples.cpu.set(m.name, processCpu(m.process.pid));
    } catch {
      // gone between the check and the read
    }
  }
  if (broker.pid !== undefined) {
    try {
      samples.cpu.set('kafka', processCpu(broker.pid));
    } catch {
      // gone
    }
  }
};

/** What the run measured once every task ran: one service scaled up, and each component restarted. */
interface After {
  /** ms from the update until the service's new tasks all run (NaN: not within the time given). */
  scaleMs?: number;
  readonly restarts: Map<string, { readonly stopMs: number; readonly readyMs: number; readonly activeMs: number }>;
}

const RESTARTED = ['allocator', 'orchestrator', 'scheduler', 'dispatcher', 'reaper'];

/** `docker service scale <service>=<to>` from `from`: ms until `to - from` more tasks run, or NaN past `timeoutMs`. */
const scaleUp = async (socket: string, watch: LogWatch, service: string, from: number, to: number, timeoutMs: number): Promise<number> => {
  const inspect = await dockerApi<{ Version: { Index: number }; Spec: Record<string, unknown> }>(socket, 'GET', `/v1.47/services/${service}`);
  if (inspect.status !== 200) throw new Error(`inspecting ${service} answered ${inspect.status}`);
  const target = watch.live.size + (to - from);
  const started = Date.now();
  const updated = await dockerApi(socket, 'POST', `/v1.47/services/${service}/update?version=${inspect.body.Version.Index}`, { ...inspect.body.Spec, Mode: { Replicated: { Replicas: to } } });
  if (updated.status !== 200) throw new Error(`scaling ${service} to ${to} answered ${updated.status}: ${JSON.stringify(updated.body)}`);
  while (watch.live.size < target) {
    if (Date.now() - started > timeoutMs) return Number.NaN;
    await sleep(100);
  }
  return Date.now() - started;
};

/** Tasks RUNNING at once at the end of each bin, from `reached` (sorted times). */
const runningAt = (reached: readonly number[], start: number, end: number, binMs: number): [number, number][] => {
  const points: [number, number][] = [[0, 0]];
  let k = 0;
  for (let t = start + binMs; t <= end + binMs; t += binMs) {
    while (k < reached.length && reached[k]! <= t) k++;
    points.push([(t - start) / 1e3, k]);
  }
  return points;
};

export const c1mBench = async (argv: readonly string[]): Promise<void> => {
  const nodes = intOption(argv, 'nodes', 5_000);
  const services = intOption(argv, 'services', 1_000);
  const replicas = intOption(argv, 'replicas', 1_000);
  const fleets = intOption(argv, 'fleets', 4);
  const concurrency = intOption(argv, 'concurrency', 4);
  const stallMs = intOption(argv, 'stall', 180) * 1_000;
  const deadlineMs = intOption(argv, 'deadline', 45) * 60_000;
  const probeMs = intOption(argv, 'probe-ms', 2_000);
  const scrapeMs = intOption(argv, 'scrape-ms', 5_000);
  const minFree = intOption(argv, 'min-free-mib', 2_560) * MIB;
  const heap = argv.includes('--heap') && argv[argv.indexOf('--heap') + 1] === '0' ? 0 : intOption(argv, 'heap', 8_192);
  const total = services * replicas;
  const entry = shoalEntry(argv);
  const profile = profileFlags(argv);
  // Through NODE_OPTIONS, which every process the cluster starts inherits: a component's workers refuse it as an execArgv flag.
  if (heap > 0) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${heap}`.trim();

  const samples: Samples = { creates: [], serviceLs: [], servicePs: [], ticks: new Map(), decisions: new Map(), loopLag: new Map(), gc: new Map(), load: [], cpu: new Map(), peaks: new Map() };
  const broker = await startBroker();
  let outcome: RunOutcome | undefined;
  const after: After = { restarts: new Map() };
  let runEnd = 0;
  let logs = '';
  try {
    const cluster = await BenchCluster.start({ brokers: broker.brokers, entry, flags: profile, nodes, fleets, schedulers: 1, timeoutMs: 300_000 });
    let watch: LogWatch | undefined;
    try {
      watch = await LogWatch.follow(broker.brokers, cluster.topic);
      say(`creating ${fmt(services)} services × ${fmt(replicas)} replicas (${fmt(total)} tasks); deadline ${deadlineMs / 60_000} min…`);
      const loadAverage = loadavg()[0]!;
      const start = Date.now();
      let done = false;
      let createsDone = 0;
      let createError: unknown;
      const creating = createServices(cluster.socket, services, replicas, concurrency, samples, () => done).then(
        (at) => void (createsDone = at),
        (error: unknown) => void (createError = error),
      );
      const probing = probeApi(cluster.socket, probeMs, samples, () => done);
      const scraping = scrapeMetrics(cluster, scrapeMs, samples, () => done);
      let lastRunning = -1;
      let lastChange = start;
      let lastSay = 0;
      let lastSample = 0;
      let incomplete: string | undefined;
      for (;;) {
        if (createError) throw createError;
        const now = Date.now();
        if (watch.live.size !== lastRunning) {
          lastRunning = watch.live.size;
          lastChange = now;
        }
        if (now - lastSample >= 2_000) {
          sampleProcesses(cluster, broker, samples);
          samples.load.push(loadavg()[0]!);
          lastSample = now;
        }
        if (now - lastSay >= 10_000) {
          say(`${((now - start) / 1e3).toFixed(0)} s: ${watch.servicesCreated} services, ${fmt(watch.assigned.size)} assigned, ${fmt(watch.live.size)} running, ${fmt(watch.records)} records, load ${loadavg()[0]!.toFixed(1)}`);
          lastSay = now;
        }
        if (watch.live.size >= total && createsDone > 0) break;
        const dead = cluster.members.find((m) => m.process.exitCode !== null);
        if (dead) {
          incomplete = `${dead.name} exited with ${dead.process.exitCode}`;
          break;
        }
        const free = memAvailable();
        if (free < minFree) {
          incomplete = `stopped when the machine's available memory fell to ${fmt(free / MIB)} MiB (below --min-free-mib ${fmt(minFree / MIB)}; the machine is shared), ${fmt(watch.live.size)} of ${fmt(total)} running`;
          break;
        }
        if (now - start > deadlineMs) {
          incomplete = `stopped at the deadline, ${deadlineMs / 60_000} min after the first create (${fmt(watch.live.size)} of ${fmt(total)} running)`;
          break;
        }
        if (now - lastChange > stallMs) {
          incomplete = `the number of RUNNING tasks did not change for ${stallMs / 1e3} s (${fmt(watch.live.size)} of ${fmt(total)} running)`;
          break;
        }
        await sleep(500);
      }
      runEnd = Date.now();
      done = true;
      sampleProcesses(cluster, broker, samples);
      await Promise.all([creating, probing, scraping]);
      if (incomplete) say(`incomplete: ${incomplete}`);
      // The watch may trail the log: let it read what was written before the numbers are taken.
      const highWaterMark = await watch.highWaterMark();
      const caughtUp = Date.now() + 120_000;
      while (watch.records < highWaterMark && Date.now() < caughtUp) await sleep(500);
      outcome = { total, start, createsDone, watch, highWaterMark, loadAverage, peakRss: new Map(samples.peaks), ...(incomplete ? { incomplete } : {}) };
      if (!incomplete && !argv.includes('--no-after')) {
        say(`all running: scaling c1m-1 from ${fmt(replicas)} to ${fmt(2 * replicas)} replicas…`);
        after.scaleMs = await scaleUp(cluster.socket, watch, 'c1m-1', replicas, 2 * replicas, 300_000);
        say(`scaled in ${fmt(after.scaleMs)} ms; restarting each component…`);
        for (const name of RESTARTED) {
          const restarted = await cluster.restart(name);
          after.restarts.set(name, restarted);
          say(`${name}: stopped in ${fmt(restarted.stopMs)} ms (its last snapshot saved), ready ${fmt(restarted.readyMs)} ms, active ${fmt(restarted.activeMs)} ms after its restart`);
        }
        sampleProcesses(cluster, broker, samples);
      }
    } finally {
      await watch?.close().catch(() => undefined);
      logs = join(ROOT, '.shoal', 'bench-logs', cluster.topic.replace(/\.events$/, ''));
      // A process writes its CPU profile only if it exits of itself, after saving its
      // view's snapshot on the way out: at a million tasks that takes tens of seconds.
      await cluster.stop(logs, argv.includes('--profile') ? 120_000 : 15_000);
      say(`each process's output: ${logs}/<name>.log`);
    }
  } finally {
    await broker.stop();
  }
  if (!outcome) throw new Error('the run ended without an outcome');
  report(argv, outcome, samples, after, { nodes, services, replicas, fleets, concurrency, heap, deadlineMs, runEnd, logs });
};

interface Setup {
  readonly nodes: number;
  readonly services: number;
  readonly replicas: number;
  readonly fleets: number;
  readonly concurrency: number;
  readonly heap: number;
  readonly deadlineMs: number;
  readonly runEnd: number;
  readonly logs: string;
}

const report = (argv: readonly string[], outcome: RunOutcome, samples: Samples, after: After, setup: Setup): void => {
  const { watch, start, total } = outcome;
  const n: E2eNumbers = e2eNumbers(outcome);
  const placed = watch.assigned.size;
  const end = Math.max(setup.runEnd, ...[...watch.running.values()].slice(-1));
  const seconds = (end - start) / 1e3;
  const binMs = Math.max(1_000, Math.ceil((end - start) / 150 / 1_000) * 1_000);
  const assignedRate = perSecond(watch.assigned.values(), start, end, binMs);
  const runningRate = perSecond(watch.running.values(), start, end, binMs);
  const x = (i: number): number => ((i + 1) * binMs) / 1e3;
  const marks = [
    ...(outcome.createsDone > 0 ? [{ x: (outcome.createsDone - start) / 1e3, label: 'all creates answered' }] : []),
    ...(outcome.incomplete ? [{ x: seconds, label: 'stopped' }] : []),
  ];
  const size = `${fmt(setup.nodes)} nodes, ${fmt(setup.services)} services × ${fmt(setup.replicas)} replicas`;
  const rate = lineChart({
    title: `C1M: placements per second (${size}; ${binMs / 1e3} s bins)`,
    xLabel: 's since the first create',
    yLabel: 'tasks per second',
    series: [
      { name: 'assigned (TasksAssigned)', color: '#1f77b4', points: assignedRate.map((v, i) => [x(i), v] as const) },
      { name: 'first RUNNING (agents’ reports)', color: '#d62728', points: runningRate.map((v, i) => [x(i), v] as const) },
    ],
    marks,
  });
  const running = lineChart({
    title: `C1M: tasks RUNNING at once (${size})`,
    xLabel: 's since the first create',
    yLabel: 'tasks RUNNING',
    series: [{ name: 'RUNNING at once', color: '#2ca02c', points: runningAt(watch.reached, start, end, binMs) }],
    marks: [...marks, ...(Number.isFinite(n.p50Running) ? [{ x: n.p50Running, label: '50%' }] : [])],
  });
  const plotDir = argv.includes('--write') ? join(ROOT, 'docs', 'benchmarks') : setup.logs;
  mkdirSync(plotDir, { recursive: true });
  writeFileSync(join(plotDir, 'c1m-rate.svg'), rate);
  writeFileSync(join(plotDir, 'c1m-running.svg'), running);
  say(`plots: ${join(plotDir, 'c1m-rate.svg')}, ${join(plotDir, 'c1m-running.svg')}`);

  const one = (name: string, unit: string, better: Measure['better'], value: number): Measure => ({ name, unit, better, runs: [value] });
  /**
   * The longest of a histogram (`what`, in seconds) in `unit`: its bucket's upper bound, or past
   * the last bucket only a lower bound (Infinity would not survive JSON). `counted` says how many.
   */
  const longest = (what: string, b: Bounds, counted: string, unit: 's' | 'ms'): Measure => {
    const scale = unit === 'ms' ? 1e3 : 1;
    return Number.isFinite(b.atMost)
      ? one(`${what} (its bucket's upper bound; above ${unit === 'ms' ? fmt(b.above * scale) : b.above} ${unit}; ${counted})`, unit, 'lower', b.atMost * scale)
      : one(`${what} (past the last bucket: longer than this; ${counted})`, unit, 'lower', b.above * scale);
  };
  const ok = (probes: readonly Probe[]): number[] => probes.filter((p) => p.ok).map((p) => p.ms);
  const notOk = (probes: readonly Probe[]): string => {
    const failed = probes.filter((p) => !p.ok).length;
    return failed > 0 ? ` (${failed} not answered 200, left out)` : '';
  };
  const measures: Measure[] = [
    one('tasks RUNNING at once at the end', 'tasks', 'higher', watch.reached.length),
    one('tasks assigned (placed)', 'tasks', 'higher', placed),
    one('services created', 'services', 'higher', watch.servicesCreated),
    ...e2eMeasures([n]),
    one('records written per task placed', 'records', 'lower', outcome.highWaterMark / placed),
    one('bytes written per task placed (keys + values)', 'bytes', 'lower', watch.bytes / placed),
    one('API: create a service, p50', 'ms', 'lower', quantile(samples.creates, 0.5)),
    one('API: create a service, p99', 'ms', 'lower', quantile(samples.creates, 0.99)),
    one(`API: docker service ls (GET /services?status=true), p50 of ${samples.serviceLs.length}${notOk(samples.serviceLs)}`, 'ms', 'lower', quantile(ok(samples.serviceLs), 0.5)),
    one(`API: docker service ls (GET /services?status=true), p99 of ${samples.serviceLs.length}${notOk(samples.serviceLs)}`, 'ms', 'lower', quantile(ok(samples.serviceLs), 0.99)),
    one(`API: docker service ps of one service (GET /tasks?filters={"service":[…]}), p50 of ${samples.servicePs.length}${notOk(samples.servicePs)}`, 'ms', 'lower', quantile(ok(samples.servicePs), 0.5)),
    one(`API: docker service ps of one service (GET /tasks?filters={"service":[…]}), p99 of ${samples.servicePs.length}${notOk(samples.servicePs)}`, 'ms', 'lower', quantile(ok(samples.servicePs), 0.99)),
    ...[...samples.ticks].map(([component, b]) => longest(`longest tick: ${component}`, b, `${fmt(b.count)} ticks`, 's')),
    ...[...samples.decisions].map(([component, b]) => longest(`longest decision: ${component}`, b, `${fmt(b.count)} decisions`, 'ms')),
    ...[...samples.loopLag].map(([name, lag]) => one(`longest event loop delay seen: ${name}`, 'ms', 'lower', lag * 1e3)),
    ...[...samples.gc].flatMap(([name, gc]) => [
      longest(`longest garbage collection: ${name}`, gc.longest, `${fmt(gc.over100ms)} over 100 ms`, 's'),
      one(`garbage collection in all: ${name}`, 's', 'lower', gc.seconds),
    ]),
    ...(after.scaleMs !== undefined ? [one(`one service scaled from ${fmt(setup.replicas)} to ${fmt(2 * setup.replicas)} replicas once all ran: its new tasks all RUNNING`, 'ms', 'lower', after.scaleMs)] : []),
    ...[...after.restarts].flatMap(([name, r]) => [
      one(`restart of the ${name}: stopped (SIGTERM, its view's snapshot saved on the way out)`, 'ms', 'lower', r.stopMs),
      one(`restart of the ${name} with every task running: ready (/readyz 200)`, 'ms', 'lower', r.readyMs),
      one(`restart of the ${name}: active again`, 'ms', 'lower', r.activeMs),
    ]),
    ...[...samples.peaks].map(([name, bytes]) => one(`peak RSS: ${name}`, 'MiB', 'lower', bytes / MIB)),
    ...[...samples.cpu].map(([name, cpu]) => one(`CPU used: ${name}`, 's', 'lower', cpu)),
  ];
  const loads = samples.load;
  const componentPeaks = COMPONENTS.map((c) => [c, samples.peaks.get(c) ?? 0] as const);
  const over = componentPeaks.filter(([, b]) => b > 2 * 2 ** 30);
  const longDecisions = [...samples.decisions].filter(([, b]) => b.atMost > 0.05);
  const longLags = [...samples.loopLag].filter(([name, lag]) => COMPONENTS.includes(name) && lag > 0.05);
  const reduced = setup.nodes !== 5_000 || total !== 1_000_000 ? ` — reduced size (${setup.nodes.toLocaleString('en-US')} nodes, ${total.toLocaleString('en-US')} tasks), not the issue's 5,000 nodes × 1,000,000 tasks` : '';
  const r = result(
    'c1m',
    `C1M: a million tasks on 5,000 simulated nodes, created through the API, every component its own process on Kafka${reduced}`,
    {
      nodes: setup.nodes,
      services: setup.services,
      replicas: setup.replicas,
      tasks: total,
      'agent processes': setup.fleets,
      'create requests in flight': setup.concurrency,
      'heap limit per process (MiB)': setup.heap || 'node default',
      'deadline (min)': setup.deadlineMs / 60_000,
      'processes from': argv.includes('--sources') ? 'sources' : 'compiled (.shoal/bench-dist)',
    },
    measures,
  );
  const allIn = Number.isFinite(n.allRunning) ? n.allRunning : Number.NaN;
  const runningRatePerSecond = watch.reached.length / seconds;
  publish({
    ...r,
    notes: [
      ...(outcome.incomplete ? [`INCOMPLETE: ${outcome.incomplete}. ${fmt(watch.reached.length)} of ${fmt(total)} tasks were RUNNING at once after ${seconds.toFixed(0)} s (${fmt(runningRatePerSecond)}/s on average), ${fmt(placed)} assigned; times never reached are NaN.`] : []),
      `Goal: all ${fmt(total)} tasks RUNNING in ≤ 5 minutes — ${allIn <= 300 ? `met (${allIn.toFixed(0)} s)` : Number.isFinite(allIn) ? `not met (${allIn.toFixed(0)} s, ${fmt(n.runningPerSecond)}/s)` : 'not met (never all RUNNING)'}.`,
      `Goal: no component above 2 GiB of RSS — ${over.length === 0 ? 'met' : `not met (${over.map(([c, b]) => `${c} ${fmt(b / MIB)} MiB`).join(', ')})`}.`,
      `Goal: no tick or pause of a component longer than 50 ms — ${longDecisions.length === 0 && longLags.length === 0 ? 'met' : `not met (decisions: ${longDecisions.map(([c, b]) => `${c} > ${fmt(b.above * 1e3)} ms`).join(', ') || 'none'}; event loop delays: ${longLags.map(([c, l]) => `${c} ${fmt(l * 1e3)} ms`).join(', ') || 'none'})`}. What a tick stops is its core's decision (shoal_component_decide_duration_seconds); the rest of a tick, its append and the wait for its view to rule on it, lets the process run and is latency, reported as the longest tick. Both are read from histogram buckets, so only the bucket is known; the event loop delay (prom-client's, the largest in each scrape interval) also catches pauses outside ticks, such as garbage collection, a snapshot being written, or a process waiting for a core. All count from each process's first scrape after the creates began, not its start.`,
      ...(after.restarts.size > 0
        ? [
            `Goal: each component's restart with every task running ≤ 10 s to ready — ${[...after.restarts].every(([, r]) => r.readyMs <= 10_000) ? 'met' : 'not met'} (${[...after.restarts].map(([name, r]) => `${name} ${(r.readyMs / 1e3).toFixed(1)} s`).join(', ')}; active again: ${[...after.restarts].map(([name, r]) => `${name} ${(r.activeMs / 1e3).toFixed(1)} s`).join(', ')}).`,
          ]
        : []),
      ...(after.scaleMs !== undefined ? [`One service scaled from ${fmt(setup.replicas)} to ${fmt(2 * setup.replicas)} replicas once every task ran: ${Number.isFinite(after.scaleMs) ? `its new tasks all RUNNING ${(after.scaleMs / 1e3).toFixed(1)} s after the update` : 'not all RUNNING within 300 s'}.`] : []),
      `${NOMAD}. Here: ${Number.isFinite(allIn) ? `${allIn.toFixed(0)} s to all RUNNING, ${fmt(n.runningPerSecond)}/s, ${(n.runningPerSecond / 3_750).toFixed(2)}× Nomad C1M's rate` : `${fmt(runningRatePerSecond)}/s RUNNING on average until stopped, ${(runningRatePerSecond / 3_750).toFixed(2)}× Nomad C1M's rate`}, on 2 cores with everything on one machine.`,
      `Placements per second over time: ![assigned and first RUNNING per second](benchmarks/c1m-rate.svg) — tasks RUNNING at once: ![tasks RUNNING at once](benchmarks/c1m-running.svg) (drawn by the benchmark).`,
      `RUNNING per second over each tenth of the run: ${n.timeline.map(fmt).join(' · ') || 'none'}.`,
      `The machine's 1-minute load average: ${outcome.loadAverage.toFixed(1)} when the creates began; during the run median ${quantile(loads, 0.5).toFixed(1)}, max ${Math.max(...loads).toFixed(1)} on ${cpus().length} CPUs (every process — components, agents, Kafka, this benchmark reading the log, and other work on the machine — shares them).`,
    ],
  });
};
