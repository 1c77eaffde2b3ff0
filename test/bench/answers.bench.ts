/**
 * Answers: how long an auditor waits for each answer on a long log. A log of `--records`
 * records (default 1,000,000, benchHistory's churning cluster) is written to a fresh topic
 * on a real broker in small appends (`--per-append`, default 20: as a cluster's components
 * write, a tick's records at a time, so the topic holds many small record batches). Set up
 * once: a snapshot every `--every` records (default 25,000) kept in an audit store, the
 * snapshot a component restarts from `--tail` records before the end (default 30,000), and
 * the story index. Then per run, in one process:
 *   ceiling     a bare kafkajs consumer reads every record (nothing decoded)
 *   platformatic  a bare @platformatic/kafka consumer reads the same topic
 *   offset      the whole state at an offset between two snapshots: the nearest at or before
 *               it (read, its hash checked), then the tail (`shoal audit replay --to`)
 *   time        the same at a wall time: the offset found by bisection over the records'
 *               times, then as above (`shoal audit replay --at`)
 *   restart     each component's view from its snapshot to ready (read, checked, the tail
 *               followed, reconciled); the slowest reported
 *   stories     one task's and one service's story from the index: checked against the log,
 *               its shard read, only their records read, from the index's copies of them;
 *               the service's again with every record read from the log (small fetches)
 *   events      `docker events --since` over the whole log: the API's event stream
 *               (replay, Docker's messages, encoded), every message written to a sink
 *   replay      the audit's full replay from offset 0 (read → decode → evolve)
 *   replay via platformatic  the same decode and evolve fed by @platformatic/kafka
 * Reported: seconds and records/s, each rate beside the ceiling measured in the same run.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { Consumer, MessagesStreamModes, stringDeserializers } from '@platformatic/kafka';
import { decode } from '@shoal/contracts';
import { Projection, takeSnapshot } from '@shoal/domain';
import type { ComponentCore, Snapshot } from '@shoal/domain';
import { FileSnapshotStore, KafkaEventLog, snapshotAtOrBefore } from '@shoal/eventlog';
import type { SnapshotStore } from '@shoal/eventlog';
import { CORE_COMPONENTS, LiveView, STORY_FETCH_BYTES, buildStoryIndex, checkStoryIndex, componentCore, offsetAtTime, readStory, replayLog, snapshotFor } from '@shoal/runtime';
import type { StoryReadFrom } from '@shoal/runtime';
import { streamDockerEvents } from '../../apps/api/src/events/event-stream';
import { benchHistory } from './history';
import { benchBroker } from './broker';
import { intOption } from './args';
import { publish, result } from './report';
import type { Measure } from './report';

const CHUNK = 5_000;
const MIB = 2 ** 20;

const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; seconds: number }> => {
  const started = process.hrtime.bigint();
  const value = await work();
  return { value, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
};

/** The records, `perAppend` to an append (one produce request, one record batch each). */
const write = async (log: KafkaEventLog, records: number, perAppend: number): Promise<number> => {
  let bytes = 0;
  let chunk: { key: string; value: string }[] = [];
  let written = 0;
  for (const value of benchHistory({ records })) {
    bytes += value.length;
    chunk.push({ key: 'bench', value });
    if (chunk.length === perAppend) {
      await log.append(chunk);
      written += chunk.length;
      chunk = [];
      if (written % 100_000 === 0) process.stderr.write(`  ${written.toLocaleString('en-US')} written\n`);
    }
  }
  if (chunk.length > 0) await log.append(chunk);
  return bytes;
};

/**
 * One replay from offset 0: a snapshot every `every` records into `audit` (an auditor's
 * store: all kept), and the one `tail` records before the end into `restart`.
 */
const saveSnapshots = async (log: KafkaEventLog, end: number, every: number, tail: number, audit: SnapshotStore, restart: SnapshotStore): Promise<{ saved: number; bytes: number; tasks: number }> => {
  const projection = new Projection(undefined, 0, { keepRefusals: 0 });
  const stops = new Set<number>();
  for (let at = every; at < end; at += every) stops.add(at);
  let saved = 0;
  let tasks = 0;
  while (projection.position < end) {
    const next = Math.min(end, ...[...stops].filter((at) => at > projection.position), end - tail > projection.position ? end - tail : end);
    while (projection.position < next) {
      const batch = await log.read(projection.position, { to: next, max: CHUNK });
      if (batch.length === 0) break;
      projection.applyAll(batch);
      projection.position = Math.max(projection.position, batch[batch.length - 1]!.offset + 1);
    }
    if (stops.has(projection.position)) {
      await audit.save(takeSnapshot(projection.state, projection.position));
      saved++;
    }
    if (projection.position === end - tail) {
      await restart.save(takeSnapshot(projection.state, projection.position));
      tasks = projection.state.tasks.size;
    }
  }
  const [file] = await readdir((restart as FileSnapshotStore).dir);
  return { saved, bytes: (await stat(join((restart as FileSnapshotStore).dir, file!))).size, tasks };
};

const bareKafkajs = async (brokers: string[], topic: string, records: number): Promise<number> => {
  const kafka = new Kafka({ clientId: 'bench-ceiling', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `bench-ceiling-${randomUUID()}`, maxBytes: 16 * MIB, maxBytesPerPartition: 16 * MIB });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const { seconds } = await timed(
    () =>
      new Promise<void>((resolve, reject) => {
        let seen = 0;
        consumer
          .run({
            autoCommit: false,
            eachBatch: async ({ batch }) => {
              seen += batch.messages.length;
              if (seen >= records) resolve();
            },
          })
          .catch(reject);
      }),
  );
  await consumer.disconnect();
  return seconds;
};

/** A @platformatic/kafka consumer from the first record: `each` sees every value (undefined: counted only). */
const platformaticRead = async (brokers: string[], topic: string, records: number, each?: (offset: number, value: string) => void): Promise<number> => {
  const consumer = new Consumer({
    groupId: `bench-platformatic-${randomUUID()}`,
    clientId: 'bench-platformatic',
    bootstrapBrokers: brokers,
    deserializers: stringDeserializers,
    maxBytes: 16 * MIB,
    maxBytesPerPartition: 16 * MIB,
  });
  try {
    const { seconds } = await timed(async () => {
      const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST, autocommit: false, maxBytes: 16 * MIB, maxBytesPerPartition: 16 * MIB });
      await new Promise<void>((resolve, reject) => {
        let seen = 0;
        stream.on('data', (message: { offset: bigint; value: string }) => {
          if (each) each(Number(message.offset), message.value);
          if (++seen === records) resolve();
        });
        stream.on('error', reject);
      });
      await stream.close();
    });
    return seconds;
  } finally {
    await consumer.close(true);
  }
};

/** The audit's decode and evolve fed by @platformatic/kafka: what that client would buy the replay. */
const platformaticReplay = async (brokers: string[], topic: string, records: number): Promise<{ seconds: number; hash: string }> => {
  const projection = new Projection(undefined, 0, { keepRefusals: 100 });
  const seconds = await platformaticRead(brokers, topic, records, (offset, value) => {
    projection.applyDecoded(offset, decode(value));
  });
  return { seconds, hash: projection.hash() };
};

/** The state at `to` as `shoal audit replay --to` reaches it: the nearest snapshot at or before it, then the tail. */
const stateAt = async (log: KafkaEventLog, dir: string, to: number): Promise<{ hash: string; from: number }> => {
  const start = await snapshotAtOrBefore(dir, to);
  const projection = await replayLog(log, { to, ...(start ? { snapshot: start.snapshot } : {}) });
  return { hash: projection.hash(), from: start?.snapshot.offset ?? 0 };
};

const cores = (): ComponentCore[] => {
  let ids = 0;
  return CORE_COMPONENTS.map((component) => componentCore(component, { newId: () => `bench-${++ids}` }));
};

/** The bytes of the files in `dir` (not its subfolders'). */
const bytesIn = async (dir: string): Promise<number> => {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return total;
};

/** A component's process restarting: its newest snapshot that belongs to the log, the tail followed, reconciled: ready. */
const restart = async (log: KafkaEventLog, store: SnapshotStore, core: ComponentCore): Promise<void> => {
  const { snapshot, refused } = await snapshotFor(log, store);
  if (!snapshot) throw new Error(`restart: no snapshot${refused ? `: ${refused}` : ''}`);
  const live = new LiveView(log, { snapshot: snapshot as Snapshot, onEvent: (event, verdict, state) => core.observe(event, verdict, state) });
  if (live.snapshotRefused) throw new Error(`restart: the snapshot was refused: ${live.snapshotRefused}`);
  await live.start();
  core.reconcileAll(live.state);
  await live.stop();
};

/** `docker events --since 0 --until now` over the whole log, as the API streams it: messages and bytes written. */
const dockerEvents = async (log: KafkaEventLog): Promise<{ messages: number; bytes: number }> => {
  let messages = 0;
  let bytes = 0;
  const stream = await streamDockerEvents(
    log,
    { since: 0n, until: BigInt(Date.now()) * 1_000_000n, filters: new Map() },
    {
      write: async (chunk) => {
        for (let at = chunk.indexOf('\n'); at >= 0; at = chunk.indexOf('\n', at + 1)) messages++;
        bytes += chunk.length;
      },
      end: () => undefined,
    },
  );
  await stream.done;
  return { messages, bytes };
};

const perSecond = (x: number): string => `${Math.round(x).toLocaleString('en-US')}/s`;
const percent = (x: number): string => `${(x * 100).toFixed(0)}%`;
const goal = (met: boolean): string => (met ? 'met' : 'not met');

export const answersBench = async (argv: readonly string[]): Promise<void> => {
  const records = intOption(argv, 'records', 1_000_000);
  const runs = intOption(argv, 'runs', 3);
  const every = intOption(argv, 'every', 25_000);
  const tail = intOption(argv, 'tail', 30_000);
  const perAppend = intOption(argv, 'per-append', 20);
  if (tail >= records || every >= records) throw new Error(`--tail (${tail}) and --every (${every}) must be fewer than --records (${records})`);
  const root = await mkdtemp(join(tmpdir(), 'shoal-bench-answers-'));
  const broker = await benchBroker();
  // --topic: a topic an earlier run of this benchmark wrote (the same --records), read again rather than written.
  const given = argv.includes('--topic') ? argv[argv.indexOf('--topic') + 1] : undefined;
  const topic = given ?? `bench-${randomUUID().slice(0, 8)}.events`;
  const log = await KafkaEventLog.open({ brokers: broker.brokers, topic, clientId: 'bench' });
  const reads = await KafkaEventLog.open({ brokers: broker.brokers, topic, clientId: 'bench-story', fetchMaxBytes: STORY_FETCH_BYTES });
  try {
    let bytes = 0;
    if (given) {
      if ((await log.highWaterMark()) !== records) throw new Error(`--topic ${given} holds ${await log.highWaterMark()} records, not --records ${records}`);
      for (const value of benchHistory({ records })) bytes += value.length;
    } else {
      process.stderr.write(`writing ${records.toLocaleString('en-US')} records to ${topic}, ${perAppend} an append…\n`);
      const written = await timed(() => write(log, records, perAppend));
      bytes = written.value;
      process.stderr.write(`written in ${written.seconds.toFixed(0)} s\n`);
    }
    const end = await log.highWaterMark();
    process.stderr.write(`snapshots every ${every.toLocaleString('en-US')} records…\n`);
    const snapshots = join(root, 'snapshots');
    const restartStore = new FileSnapshotStore(join(root, 'restart'));
    const saved = await timed(() => saveSnapshots(log, end, every, tail, new FileSnapshotStore(join(snapshots, 'audit'), Number.MAX_SAFE_INTEGER), restartStore));
    process.stderr.write(`${saved.value.saved} snapshots in ${saved.seconds.toFixed(0)} s; the story index…\n`);
    const indexDir = join(root, 'story-index');
    const indexed = await timed(() => buildStoryIndex(log, indexDir));
    const indexBytes = await bytesIn(join(indexDir, indexed.value.manifest.data));
    const copiesBytes = await bytesIn(join(indexDir, 'records'));
    process.stderr.write(`index built in ${indexed.seconds.toFixed(0)} s (${(indexBytes / MIB).toFixed(0)} MiB, its copies of the records ${(copiesBytes / MIB).toFixed(0)} MiB)\n`);

    // The points asked for: an offset between two snapshots, and a wall time a quarter of the log later.
    const atOffset = Math.floor(end / 2 / every) * every + Math.floor(every / 2) + 7;
    const timeOffset = Math.min(end - 1, Math.floor((end * 3) / 4 / every) * every + Math.floor(every / 2) + 3);
    const [timed0] = await reads.read(timeOffset, { to: timeOffset + 1 });
    const wallTime = Date.parse((decode(timed0!.value) as { ok: true; event: { at: string } }).event.at);
    // One task in the middle of the log's life, and one service.
    const taskId = `task-${Math.floor(records / 20)}`;
    const serviceId = 'svc-7';

    const series: Record<string, number[]> = {};
    const push = (name: string, value: number): void => {
      (series[name] ??= []).push(value);
    };
    const load: number[] = [];
    let hash = '';
    let storySizes = { task: 0, service: 0 };
    let eventsSent = { messages: 0, bytes: 0 };
    for (let run = 1; run <= runs; run++) {
      load.push(loadavg()[0]!);
      const ceiling = records / (await bareKafkajs(broker.brokers, topic, records));
      push('ceiling', ceiling);
      push('platformatic', records / (await platformaticRead(broker.brokers, topic, records)));

      const offset = await timed(() => stateAt(log, snapshots, atOffset));
      push('offset', offset.seconds);
      const time = await timed(async () => stateAt(log, snapshots, await offsetAtTime(reads, wallTime)));
      push('time', time.seconds);
      let slowest = 0;
      for (const core of cores()) slowest = Math.max(slowest, (await timed(() => restart(log, restartStore, core))).seconds);
      push('restart', slowest);

      const story = async (id: string, readFrom: StoryReadFrom = 'copies'): Promise<number> => {
        const check = await checkStoryIndex(indexDir, reads);
        if (!check.ok) throw new Error(check.reason);
        return (await readStory(indexDir, check.manifest, reads, id, readFrom)).length;
      };
      const task = await timed(() => story(taskId));
      const service = await timed(() => story(serviceId));
      const serviceFromLog = await timed(() => story(serviceId, 'log'));
      push('task', task.seconds);
      push('service', service.seconds);
      push('service-log', serviceFromLog.seconds);
      storySizes = { task: task.value, service: service.value };

      const events = await timed(() => dockerEvents(log));
      eventsSent = events.value;
      push('events', records / events.seconds);
      const replay = await timed(async () => (await replayLog(log, { to: end, keepRefusals: 100 })).hash());
      hash = replay.value;
      push('replay', records / replay.seconds);
      const viaPlatformatic = await platformaticReplay(broker.brokers, topic, records);
      if (viaPlatformatic.hash !== hash) throw new Error(`the replay fed by @platformatic/kafka reached ${viaPlatformatic.hash}, not ${hash}`);
      push('replay-platformatic', records / viaPlatformatic.seconds);
      process.stderr.write(
        `run ${run}: ceiling ${perSecond(ceiling)}, platformatic ${perSecond(series.platformatic![run - 1]!)}, state at offset ${offset.seconds.toFixed(2)} s (from ${offset.value.from}), ` +
          `at time ${time.seconds.toFixed(2)} s, restart ${slowest.toFixed(2)} s, stories ${task.seconds.toFixed(3)} s (${task.value}) · ${service.seconds.toFixed(3)} s (${service.value}; ${serviceFromLog.seconds.toFixed(3)} s from the log), ` +
          `events ${perSecond(series.events![run - 1]!)}, replay ${perSecond(series.replay![run - 1]!)}, replay via platformatic ${perSecond(series['replay-platformatic']![run - 1]!)}\n`,
      );
    }
    const ratio = (name: string): number[] => series[name]!.map((rate, i) => rate / series.ceiling![i]!);
    const measures: Measure[] = [
      { name: 'bare kafkajs consumer (ceiling)', unit: 'records/s', runs: series.ceiling!, better: 'higher' },
      { name: 'bare @platformatic/kafka consumer, same topic', unit: 'records/s', runs: series.platformatic!, better: 'higher' },
      { name: `the whole state at offset ${atOffset.toLocaleString('en-US')} (nearest snapshot + tail)`, unit: 's', runs: series.offset!, better: 'lower' },
      { name: 'the whole state at a wall time (bisection over the records\' times, nearest snapshot + tail)', unit: 's', runs: series.time!, better: 'lower' },
      { name: "a component restarting to ready (the slowest of five: snapshot read and checked, tail followed, reconciled)", unit: 's', runs: series.restart!, better: 'lower' },
      { name: `one task's story from the index (${storySizes.task} records)`, unit: 's', runs: series.task!, better: 'lower' },
      { name: `one service's story from the index (${storySizes.service} records)`, unit: 's', runs: series.service!, better: 'lower' },
      { name: `one service's story, every record read from the log (${storySizes.service} records)`, unit: 's', runs: series['service-log']!, better: 'lower' },
      { name: 'docker events --since over the whole log (the API\'s event stream)', unit: 'records/s', runs: series.events!, better: 'higher' },
      { name: 'full replay from offset 0 (read → decode → evolve)', unit: 'records/s', runs: series.replay!, better: 'higher' },
      { name: 'full replay, records read by @platformatic/kafka', unit: 'records/s', runs: series['replay-platformatic']!, better: 'higher' },
      { name: '@platformatic/kafka consumer / ceiling', unit: 'ratio', runs: ratio('platformatic'), better: 'higher' },
      { name: 'docker events / ceiling', unit: 'ratio', runs: ratio('events'), better: 'higher' },
      { name: 'full replay / ceiling', unit: 'ratio', runs: ratio('replay'), better: 'higher' },
      { name: 'full replay via @platformatic/kafka / ceiling', unit: 'ratio', runs: ratio('replay-platformatic'), better: 'higher' },
      { name: 'full replay via @platformatic/kafka / full replay', unit: 'ratio', runs: series['replay-platformatic']!.map((rate, i) => rate / series.replay![i]!), better: 'higher' },
    ];
    const r = result(
      'answers',
      'Answers: the state at any point, a restart, a story, docker events, a full replay',
      {
        records,
        runs,
        'records an append': perAppend,
        'log bytes': bytes,
        'snapshots (every)': every,
        'snapshots kept': saved.value.saved,
        'restart tail': tail,
        'restart snapshot bytes': saved.value.bytes,
        'tasks in it': saved.value.tasks,
        'story index bytes': indexBytes,
        'story index copies of the records, bytes': copiesBytes,
        'story index entities': indexed.value.manifest.entities,
        'story index postings': indexed.value.manifest.postings,
        'story index built in (s)': Number(indexed.seconds.toFixed(1)),
        'docker events written': eventsSent.messages,
        'final state hash': hash.slice(0, 16),
      },
      measures,
    );
    const median = (name: string): number => r.measures.find((m) => m.name === name)!.median;
    const m = (i: number): number => median(measures[i]!.name);
    publish({
      ...r,
      notes: [
        `The whole state at an offset: ${m(2).toFixed(2)} s; at a wall time: ${m(3).toFixed(2)} s. Goal ≤ 2 s: ${goal(Math.max(m(2), m(3)) <= 2)}. Each starts from the nearest snapshot at or before the point, here ${Math.floor(every / 2).toLocaleString('en-US')} records before it (snapshots every ${every.toLocaleString('en-US')} records, all kept in one store).`,
        `A component restarting to ready: ${m(4).toFixed(2)} s (the slowest of the five, its snapshot ${tail.toLocaleString('en-US')} records before the end). Goal ≤ 2 s: ${goal(m(4) <= 2)}.`,
        `One task's story (${storySizes.task} records): ${m(5).toFixed(3)} s; one service's (${storySizes.service} records, scattered over the whole log): ${m(6).toFixed(3)} s — the index checked against the log, one shard read, only those records read, from the index's copies (${m(7).toFixed(3)} s with each read from the log). Goal ≤ 0.5 s: ${goal(Math.max(m(5), m(6)) <= 0.5)}.`,
        `docker events --since over the whole log: ${perSecond(m(8))}, ${percent(median('docker events / ceiling'))} of the bare consumer's rate in the same runs. Goal: the consumer's rate: ${goal(median('docker events / ceiling') >= 0.9)}.`,
        `Full replay from offset 0: ${perSecond(m(9))}, ${percent(median('full replay / ceiling'))} of the bare consumer. Goal ≥ 70%: ${goal(median('full replay / ceiling') >= 0.7)}.`,
        `@platformatic/kafka as a second client: its bare consumer reads ${perSecond(m(1))}, ${median('@platformatic/kafka consumer / ceiling').toFixed(2)}× kafkajs's on the same topic; the replay fed by it ${perSecond(m(10))}, ${median('full replay via @platformatic/kafka / full replay').toFixed(2)}× the replay as it is (the same final hash).`,
        `Load average (1 min) as each run began: ${load.map((l) => l.toFixed(1)).join(' · ')} on ${cpus().length} cores shared with other work: compare the ratios, measured in the same run.`,
      ],
    });
  } finally {
    await reads.close();
    await log.close();
    await broker.stop();
    await rm(root, { recursive: true, force: true });
  }
};
