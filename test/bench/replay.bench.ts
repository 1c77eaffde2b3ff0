/**
 * Replay: how fast a view is rebuilt from the log. A log of `--records` records (default
 * 1,000,000, a churning cluster: benchHistory) is written to a fresh topic on a real
 * broker; then, per run and in the same process:
 *   ceiling  a bare kafkajs consumer reads every record of the topic (nothing decoded)
 *   audit    the audit's replay (explicit-offset reads → decode → evolve), as `shoal audit verify` does
 *   view     a LiveView (follow from 0 → decode → evolve → observe → reconcile) with all five
 *            cores watching, then once per component with its own core only, as each
 *            component's process rebuilds its view
 *   restart  once per component, what its process waits for when it restarts with a
 *            snapshot `--tail` records before the log's end (default 30,000): the snapshot
 *            read, parsed and checked against its hash, then the tail followed
 *   split    in memory, the same records: seconds decoding them (JSON.parse, upcast, shape
 *            check) and seconds applying them (evolve), chunk by chunk
 * and reports records per second and the ratio of each to the ceiling. From the split and
 * the ceiling it works out the bound no record encoding can pass: the audit if decoding
 * cost nothing, the ceiling's time per record plus evolve's.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { decode } from '@shoal/contracts';
import type { Decoded } from '@shoal/contracts';
import { FileSnapshotStore, KafkaEventLog } from '@shoal/eventlog';
import type { SnapshotStore } from '@shoal/eventlog';
import { CORE_COMPONENTS, LiveView, componentCore, replayLog, snapshotFor } from '@shoal/runtime';
import { Projection, takeSnapshot } from '@shoal/domain';
import type { ComponentCore, Snapshot } from '@shoal/domain';
import { benchHistory } from './history';
import { appendRecords } from './append-records';
import { benchBroker } from './broker';
import { intOption } from './args';
import { publish, result } from './report';
import type { Measure } from './report';

/** Records decoded, then applied, at a time in the split: few, so that they die young as in a replay (10,000 at a time measured ~30% slower). */
const SPLIT_CHUNK = 100;

/**
 * What the profiles of this benchmark showed and what was done about it, round by round,
 * with the numbers before; {audit} and {view} are this run's ratios to the ceiling.
 */
const PROFILED = [
  'First round (CPU profile, self time): the view spent ~15 µs a record trimming its map of recent verdicts from the head; then JSON.parse, garbage collection, data shapes building a path string per field, the star re-export of @shoal/contracts (a megamorphic accessor on every TaskState read), reservations rebuilt on every status report, and the audit fetching each 16 MiB response about three times. Changed: a ring of recent verdicts by offset; shapes spell a path only for a value that does not fit; the names every record reads are re-exported by name; putTask leaves reservations alone when a task holds the same as before; the Kafka read keeps what its last fetch brought beyond `max` and the follower fetches the next batch while the handler works; new tasks are written without the service spec they run. Bought: audit replay from 10% to 16% of the ceiling, the view with every core from 6% to 11%.',
  'Second round: evolve alone took ~10 µs a record of ten items, mostly in copying tasks (`{ ...task, status }`). Tasks at each stage of their life had different fields, so different hidden classes, and the copying sites went megamorphic (~0.5 µs a copy instead of ~25 ns). Every stored task and status now has all its fields in one order (absent ones undefined, which the hash leaves out: the final state hash is unchanged). The scheduler also worked out each task\'s reservations and host ports again on every status report; it now keeps them while the task\'s spec and ports are the same. Bought, measured in memory: evolve ~10 → ~2 µs a record, the five cores\' observe ~10 → ~6 µs. Through Kafka (this benchmark at 1,000,000 records, the code before this round run just before it on the same machine): audit replay from 13% to {audit} of the ceiling, the view with every core from 8% to {view} (before: medians of 37,111 and 25,690 records/s against a ceiling of 310,988).',
  'Third round, the restart from a snapshot (in memory, a state of 91,420 tasks, 55 MiB of JSON): reading the file ~0.07 s, JSON.parse ~0.6 s, rebuilding the state ~0.1 s, then checking it against the snapshot\'s hash 1.2–1.5 s, of which the domain\'s SHA-256, in plain TypeScript, took 0.8–1.2 s (node:crypto\'s: 0.05–0.1 s over the same text) and writing the state as canonical JSON the rest. Changed: libs/runtime installs node:crypto\'s SHA-256 for the domain\'s hashes (the same digests; a property checks both over any text and any history). Bought: the hash check 1.2–1.5 → 0.5–0.7 s, and the slowest component\'s restart from 3.53 s (median of 3 runs just before, same machine and day) to 2.78 s. Every state hash (/statez, snapshots saved, the audit) gains the same.',
  'Fourth round, the restart again (the same state; the code before this round run alternately with it, same machine and session, 2 runs of 10 restarts, the scheduler\'s and the orchestrator\'s): the tasks of a service share one spec object in the state, but a snapshot wrote it into every task, half of its 57 MB, and a restored state then held 91,420 copies (141 MiB, against 73 MiB shared). The hash wrote each shared spec again for every task too, and handed the digest one piece per entity (~0.2 s of calls). Changed: snapshots are written in format 2, each spec once and tasks naming theirs by index (format 1 still restores; the audit\'s state stays whole); restored tasks share their specs again; the hash writes a shared spec once and feeds the digest 64 KiB at a time (the same digest: a property holds it to its definition). Bought: the snapshot 57 → 31 MB; reading and parsing it 1.0–1.3 → 0.5–0.6 s, restoring and checking it 1.0–1.3 → 0.6–0.8 s; the restart 3.1 and 3.7 → 1.9 and 2.5 s (medians of each run, before → after); {restart} s in this run.',
  'What bounds it now (profile of the audit replay through Kafka): JSON.parse ~33% of the time (~5–6 µs for a record of ~900 bytes, more than the 3–4 µs the bare consumer spends on one), garbage collection ~16%, kafkajs decoding and buffer copies, which the ceiling pays too, ~10%, then evolve ~10% and shape checks ~6%. A single thread that parses JSON records of this size cannot reach 50% of a consumer that does not parse them. The cost is in the strings: the same status record written as nested arrays instead of objects still takes ~3.0 µs to parse (~4.8 µs as it is; in memory, 50,000 records), so no shape of JSON gets there. Nor would another encoding on its own (a binary one with a string table, which the design\'s JSON envelope rules out today): the split above prices a record that costs nothing to decode, and the ceiling\'s time per record plus evolve\'s already leaves the audit far below 250,000/s and near half the ceiling. Handing parsed objects across threads costs more than parsing them (structured clone ~13 µs a record), and reading on a second thread does not help either: with kafkajs\'s fetch and framing in a worker, records handed over as one string per fetch, the audit reached 25% of the ceiling against 26% for the audit as it is (medians of 3 runs of each, alternating, 300,000 records); the thread that decodes and evolves was busy ~77% of the time, and its decode and evolve alone take 14–16 µs a record with the records held in memory.',
];

/**
 * The cores whose observe() runs during the view's replay: all five in one view, which is
 * more than any one component does (each watches with its own core only), then each
 * reconciles as it does on taking over.
 */
const cores = (): ComponentCore[] => {
  let ids = 0;
  const newId = (): string => `bench-${++ids}`;
  return CORE_COMPONENTS.map((component) => componentCore(component, { newId }));
};

const COMPONENTS = cores().map((core) => core.component);

/**
 * Follows the log to its end with `watching` observing, then lets each reconcile, as on
 * taking over: from 0, or from a snapshot.
 */
const rebuildView = async (log: KafkaEventLog, watching: readonly ComponentCore[], snapshot?: Snapshot): Promise<void> => {
  const live = new LiveView(log, { ...(snapshot ? { snapshot } : {}), onEvent: (event, verdict, state) => watching.forEach((core) => core.observe(event, verdict, state)) });
  if (live.snapshotRefused) throw new Error(`restart: the snapshot was refused: ${live.snapshotRefused}`);
  await live.start();
  for (const core of watching) core.reconcileAll(live.state);
  await live.stop();
};

/** A component process's restart: the newest snapshot of its store that belongs to the log (read, parsed, checked), then the tail. */
const restart = async (log: KafkaEventLog, store: SnapshotStore, core: ComponentCore): Promise<void> => {
  const { snapshot, refused } = await snapshotFor(log, store);
  if (!snapshot) throw new Error(`restart: no snapshot to start from${refused ? `: ${refused}` : ''}`);
  await rebuildView(log, [core], snapshot);
};

/** The state `tail` records before the log's end, saved in a store of its own: what a restart starts from. Its file's size, and the tasks it holds. */
const snapshotBefore = async (log: KafkaEventLog, end: number, tail: number, store: FileSnapshotStore): Promise<{ bytes: number; tasks: number }> => {
  const projection = await replayLog(log, { to: end - tail, keepRefusals: 100 });
  await store.save(takeSnapshot(projection.state, end - tail));
  const [file] = await readdir(store.dir);
  return { bytes: (await stat(join(store.dir, file!))).size, tasks: projection.state.tasks.size };
};

const fill = (log: KafkaEventLog, records: number): Promise<number> => appendRecords(log, benchHistory({ records }));

const bareConsumer = async (brokers: string[], topic: string, records: number): Promise<number> => {
  const kafka = new Kafka({ clientId: 'bench-ceiling', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `bench-ceiling-${randomUUID()}`, maxBytes: 16 * 2 ** 20, maxBytesPerPartition: 16 * 2 ** 20 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const started = process.hrtime.bigint();
  let seen = 0;
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          seen += batch.messages.length;
          if (seen >= records) resolve();
        },
      })
      .catch(reject);
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await consumer.disconnect();
  return seconds;
};

/** Decode and evolve timed apart, in memory, over the log's records: seconds for each. */
const split = (records: number): { decode: number; evolve: number } => {
  const projection = new Projection(undefined, 0, { keepRefusals: 100 });
  let decoding = 0n;
  let evolving = 0n;
  let chunk: string[] = [];
  const apply = (): void => {
    let started = process.hrtime.bigint();
    const decoded: Decoded[] = chunk.map((value) => decode(value));
    decoding += process.hrtime.bigint() - started;
    started = process.hrtime.bigint();
    for (const record of decoded) projection.applyDecoded(projection.position, record);
    evolving += process.hrtime.bigint() - started;
    chunk = [];
  };
  for (const value of benchHistory({ records })) {
    chunk.push(value);
    if (chunk.length === SPLIT_CHUNK) apply();
  }
  apply();
  if (projection.tally.applied !== records) throw new Error(`split: ${projection.tally.applied} of ${records} records applied`);
  return { decode: Number(decoding) / 1e9, evolve: Number(evolving) / 1e9 };
};

const CEILING = 'bare kafkajs consumer (ceiling)';
const DECODE = 'in memory: decode a record (JSON.parse, upcast, shape check)';
const EVOLVE = 'in memory: evolve a record (Projection.applyDecoded)';
const BOUND = 'bound for any encoding: the audit if decoding cost nothing (ceiling + evolve, per record)';
const BOUND_RATIO = 'bound for any encoding / ceiling';

const RESTART = "restart from a snapshot (the slowest component's): snapshot read and checked, tail followed";
const FROM_ZERO = "the slowest component's own view from the start of the log";

/** What a restart waits for, with and without a snapshot (medians, seconds). */
const restartNote = (m: { tail: number; records: number; restart: number; fromZero: number; snapshotBytes: number; tasks: number }): string =>
  `A component restarting with a snapshot ${m.tail.toLocaleString('en-US')} records before the end ` +
  `(${(m.snapshotBytes / 2 ** 20).toFixed(0)} MiB, ${m.tasks.toLocaleString('en-US')} tasks) is back in ${m.restart.toFixed(1)} s; ` +
  `replaying all ${m.records.toLocaleString('en-US')} records from the start, ${m.fromZero.toFixed(1)} s (${(m.fromZero / m.restart).toFixed(1)}× longer). ` +
  'The restart costs the snapshot (its size is the state\'s, not the log\'s) and the tail, so it stays this short as the log grows; the full replay is what an audit from zero costs.';

const percent = (x: number): string => `${(x * 100).toFixed(0)}%`;
const perSecond = (x: number): string => `${Math.round(x).toLocaleString('en-US')}/s`;

/**
 * What the split says about any record encoding (medians: µs a record, records/s). At 50%
 * of the ceiling the audit may spend the ceiling's time per record again; what evolve does
 * not use of that is all a decoder may take.
 */
const whereTheTimeGoes = (m: { decode: number; evolve: number; ceiling: number; bound: number; boundRatio: number }): string => {
  const budget = 1e6 / m.ceiling - m.evolve;
  const goal = m.bound >= 250_000 ? 'a record that cost nothing to decode could reach 250,000 records/s' : 'the 250,000 records/s goal is out of reach for any encoding on this machine';
  const half = budget > 0 ? `50% of the ceiling needs a decoder under ${budget.toFixed(1)} µs a record (JSON takes ${m.decode.toFixed(1)})` : 'even at no cost to decode, 50% of the ceiling would need evolve itself to be faster';
  return (
    `Where the time goes, in memory over the same records: decoding ${m.decode.toFixed(1)} µs a record, evolve ${m.evolve.toFixed(1)} µs. ` +
    `A record that cost nothing to decode would leave the audit at ${perSecond(m.bound)}, ${percent(m.boundRatio)} of the ceiling: ${goal}, and ${half}.`
  );
};

const timed = async (work: () => Promise<unknown>): Promise<number> => {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e9;
};

export const replayBench = async (argv: readonly string[]): Promise<void> => {
  const records = intOption(argv, 'records', 1_000_000);
  const runs = intOption(argv, 'runs', 3);
  const tail = intOption(argv, 'tail', 30_000);
  if (tail >= records) throw new Error(`--tail (${tail}) must be fewer than --records (${records})`);
  const snapshots = await mkdtemp(join(tmpdir(), 'shoal-bench-snapshots-'));
  const broker = await benchBroker();
  const topic = `bench-${randomUUID().slice(0, 8)}.events`;
  const log = await KafkaEventLog.open({ brokers: broker.brokers, topic, clientId: 'bench' });
  try {
    process.stderr.write(`writing ${records.toLocaleString('en-US')} records to ${topic}…\n`);
    const bytes = await fill(log, records);
    const end = await log.highWaterMark();
    const store = new FileSnapshotStore(snapshots);
    const saved = await snapshotBefore(log, end, tail, store);
    const ceiling: number[] = [];
    const audit: number[] = [];
    const view: number[] = [];
    /** Per component (in COMPONENTS' order), one rate per run. */
    const perComponent: number[][] = [];
    /** Per component, seconds to restart from the snapshot, one per run. */
    const restarts: number[][] = [];
    const decoding: number[] = [];
    const evolving: number[] = [];
    let hash = '';
    const load: number[] = [];
    for (let run = 1; run <= runs; run++) {
      load.push(loadavg()[0]!);
      ceiling.push(records / (await bareConsumer(broker.brokers, topic, records)));
      audit.push(
        records /
          (await timed(async () => {
            const projection = await replayLog(log, { to: end, keepRefusals: 100 });
            hash = projection.hash();
          })),
      );
      view.push(records / (await timed(() => rebuildView(log, cores()))));
      for (const [i, core] of cores().entries()) {
        (perComponent[i] ??= []).push(records / (await timed(() => rebuildView(log, [core]))));
      }
      for (const [i, core] of cores().entries()) (restarts[i] ??= []).push(await timed(() => restart(log, store, core)));
      const apart = split(records);
      decoding.push((apart.decode / records) * 1e6);
      evolving.push((apart.evolve / records) * 1e6);
      const rates = perComponent.map((rates) => Math.round(rates[run - 1]!)).join(' · ');
      process.stderr.write(
        `run ${run}: ceiling ${Math.round(ceiling[run - 1]!)}/s, audit ${Math.round(audit[run - 1]!)}/s, view ${Math.round(view[run - 1]!)}/s, own views ${rates}/s, ` +
          `restarts ${restarts.map((seconds) => seconds[run - 1]!.toFixed(2)).join(' · ')} s, ` +
          `in memory decode ${decoding[run - 1]!.toFixed(2)} µs + evolve ${evolving[run - 1]!.toFixed(2)} µs a record\n`,
      );
    }
    const slowest = ceiling.map((_, run) => Math.min(...perComponent.map((rates) => rates[run]!)));
    // What a restart waits for, the slowest component's, with the snapshot and without it.
    const slowestRestart = ceiling.map((_, run) => Math.max(...restarts.map((seconds) => seconds[run]!)));
    const slowestFromZero = slowest.map((rate) => records / rate);
    // The audit with decoding free: the ceiling's time per record plus evolve's, in seconds.
    const bound = ceiling.map((rate, run) => 1 / (1 / rate + evolving[run]! / 1e6));
    const measures: Measure[] = [
      { name: CEILING, unit: 'records/s', runs: ceiling, better: 'higher' },
      { name: 'audit replay (read → decode → evolve)', unit: 'records/s', runs: audit, better: 'higher' },
      { name: `view with every core (follow → evolve → observe → reconcile: ${COMPONENTS.join(', ')})`, unit: 'records/s', runs: view, better: 'higher' },
      ...COMPONENTS.map((component, i): Measure => ({ name: `the ${component}'s own view (its core only, as its process rebuilds)`, unit: 'records/s', runs: perComponent[i]!, better: 'higher' })),
      { name: RESTART, unit: 's', runs: slowestRestart, better: 'lower' },
      { name: FROM_ZERO, unit: 's', runs: slowestFromZero, better: 'lower' },
      { name: DECODE, unit: 'µs', runs: decoding, better: 'lower' },
      { name: EVOLVE, unit: 'µs', runs: evolving, better: 'lower' },
      { name: BOUND, unit: 'records/s', runs: bound, better: 'higher' },
      { name: 'audit replay / ceiling', unit: 'ratio', runs: audit.map((a, i) => a / ceiling[i]!), better: 'higher' },
      { name: 'view with every core / ceiling', unit: 'ratio', runs: view.map((v, i) => v / ceiling[i]!), better: 'higher' },
      { name: "slowest component's own view / ceiling", unit: 'ratio', runs: slowest.map((v, i) => v / ceiling[i]!), better: 'higher' },
      { name: BOUND_RATIO, unit: 'ratio', runs: bound.map((b, i) => b / ceiling[i]!), better: 'higher' },
    ];
    const r = result(
      'replay',
      'Replay: rebuilding a view from the log',
      {
        records,
        runs,
        'log bytes': bytes,
        'bytes per record': Math.round(bytes / records),
        'final state hash': hash.slice(0, 16),
        tail,
        'snapshot bytes': saved.bytes,
        'tasks in the snapshot': saved.tasks,
      },
      measures,
    );
    const median = (name: string): number => r.measures.find((m) => m.name === name)!.median;
    const viewMedian = median(measures[2]!.name);
    const auditRatio = median('audit replay / ceiling');
    const ratio = median('view with every core / ceiling');
    const ownRatio = median("slowest component's own view / ceiling");
    const own = COMPONENTS.map((component, i) => ({ component, rate: median(measures[3 + i]!.name) }));
    const slowestOwn = own.reduce((a, b) => (b.rate < a.rate ? b : a));
    publish({
      ...r,
      notes: [
        `Goal ≥ 250,000 records/s: ${viewMedian >= 250_000 ? 'met' : 'not met'} (${perSecond(viewMedian)} for a view with every core; ${perSecond(slowestOwn.rate)} for the slowest component's own view, the ${slowestOwn.component}'s).`,
        `Goal ≥ 50% of the ceiling: ${ratio >= 0.5 ? 'met' : 'not met'} (${percent(ratio)} with every core; ${percent(ownRatio)} for the slowest component's own view; ${percent(auditRatio)} for the audit).`,
        restartNote({ tail, records, restart: median(RESTART), fromZero: median(FROM_ZERO), snapshotBytes: saved.bytes, tasks: saved.tasks }),
        whereTheTimeGoes({ decode: median(DECODE), evolve: median(EVOLVE), ceiling: median(CEILING), bound: median(BOUND), boundRatio: median(BOUND_RATIO) }),
        'Each component runs in its own process and rebuilds only its own view (the state and its core), so its own view from the start is what a restart without a snapshot waits for; the view with every core does the work of all five on one thread.',
        `Load average (1 min) as each run began: ${load.map((l) => l.toFixed(1)).join(' · ')} on ${cpus().length} cores shared with other work: compare the ratios, measured in the same run, rather than records/s across runs.`,
        ...PROFILED.map((line) => line.replace('{audit}', percent(auditRatio)).replace('{view}', percent(ratio)).replace('{restart}', median(RESTART).toFixed(2))),
      ],
    });
  } finally {
    await log.close();
    await broker.stop();
    await rm(snapshots, { recursive: true, force: true });
  }
};
