/**
 * Verify: `shoal audit verify` on one core and on every core. A log of `--records` records
 * (default 200,000; benchHistory's churning cluster) with a signed checkpoint every
 * `--every` records (default 5,000, the reaper's default) is written to a fresh topic on a
 * real broker; then, per run:
 *   proof    proveLog in this process on one thread, and by segments on `--workers`
 *            worker threads (default: one a core), its report checked to be the same;
 *            the CPU time the process spent over the wall time says how many cores it kept busy
 *   serial   what the proof on workers keeps on the reading thread, alone: the log read
 *            once and replayed, the state hashed at each checkpoint's `through`; the proof
 *            on one thread over it is the most the workers can buy on any number of cores
 *   command  the whole `shoal audit verify --json` (the proof, then the replays, which stay
 *            on one thread) as its own process, `--workers 1` and `--workers N`, from the
 *            compiled build (`--sources` for bin/shoal)
 * The order of the two alternates from run to run. Reported: the medians and the speed-ups.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Projection } from '@shoal/domain';
import { KafkaEventLog } from '@shoal/eventlog';
import { DEFAULT_CHECKPOINT_RECORDS, checkpointIn, newSigningKey, proveLog } from '@shoal/runtime';
import type { ProofReport } from '@shoal/runtime';
import { intOption } from './args';
import { benchBroker } from './broker';
import { shoalEntry } from './compiled';
import { publish, result } from './report';
import type { Measure } from './report';
import { signedHistory } from './signed-history';
import { appendRecords } from './append-records';

const READ_CHUNK = 5_000;
const run = promisify(execFile);

/** Seconds of wall time, and of CPU time this process spent (every thread of it), doing `work`. */
const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; cpu: number }> => {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const value = await work();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  return { value, seconds, cpu: (used.user + used.system) / 1e6 };
};

/** Every record of the log, a chunk at a time. */
const eachRecord = async (log: KafkaEventLog, end: number, visit: (offset: number, value: string) => void): Promise<void> => {
  for (let position = 0; position < end; ) {
    const batch = await log.read(position, { to: end, max: READ_CHUNK });
    if (batch.length === 0) break;
    for (const record of batch) visit(record.offset, record.value);
    position = batch[batch.length - 1]!.offset + 1;
  }
};

/** What the reading thread does alone when workers check the segments: one read, the replay, a state hash at each of `throughs`. */
const serialPart = async (log: KafkaEventLog, end: number, throughs: ReadonlySet<number>): Promise<void> => {
  const projection = new Projection(undefined, 0, { keepRefusals: 0 });
  await eachRecord(log, end, (offset, value) => {
    projection.apply({ offset, value });
    if (throughs.has(offset)) projection.hash();
  });
};

export const verifyBench = async (argv: readonly string[]): Promise<void> => {
  const records = intOption(argv, 'records', 200_000);
  const every = intOption(argv, 'every', DEFAULT_CHECKPOINT_RECORDS);
  const runs = intOption(argv, 'runs', 3);
  const workers = intOption(argv, 'workers', availableParallelism());
  const entry = shoalEntry(argv);
  const scratch = await mkdtemp(join(tmpdir(), 'shoal-bench-verify-'));
  const { key, pem } = newSigningKey();
  await writeFile(join(scratch, 'audit.pem'), pem, { mode: 0o600 });
  const broker = await benchBroker();
  const prefix = `bench-verify-${randomUUID().slice(0, 8)}`;
  const log = await KafkaEventLog.open({ brokers: broker.brokers, topic: `${prefix}.events`, clientId: 'bench' });
  try {
    process.stderr.write(`writing ${records.toLocaleString('en-US')} records and their checkpoints to ${prefix}.events…\n`);
    const bytes = await appendRecords(log, signedHistory({ records, every, key }));
    const written = await log.highWaterMark();
    const throughs = new Set<number>();
    await eachRecord(log, written, (offset, value) => {
      const checkpoint = checkpointIn({ offset, value });
      if (checkpoint) throughs.add(checkpoint.data.through);
    });

    const env = { ...process.env, KAFKA_BROKERS: broker.brokers.join(','), SHOAL_TOPIC_PREFIX: prefix, SHOAL_DATA_DIR: scratch };
    /** `shoal audit verify --json` on `threads` workers: its seconds; throws unless the log verifies. */
    const command = async (threads: number): Promise<number> => {
      const args = entry.argv(['audit', 'verify', '--json', '--key', join(scratch, 'audit.pem'), '--snapshots', join(scratch, 'snapshots'), '--workers', String(threads)]);
      const { value, seconds } = await timed(() => run(process.execPath, args, { env, maxBuffer: 2 ** 28 }));
      const report = JSON.parse(value.stdout) as { ok: boolean; proof: ProofReport };
      if (!report.ok) throw new Error(`shoal audit verify --workers ${threads} did not verify the log: ${JSON.stringify(report.proof.difference ?? report.proof.problems[0] ?? 'replays disagree')}`);
      return seconds;
    };

    const one = { seconds: [] as number[], cores: [] as number[] };
    const many = { seconds: [] as number[], cores: [] as number[] };
    const serial: number[] = [];
    const commandOne: number[] = [];
    const commandMany: number[] = [];
    const load: number[] = [];
    let checkpoints = 0;
    for (let i = 1; i <= runs; i++) {
      load.push(loadavg()[0]!);
      const order = i % 2 === 1 ? [1, workers] : [workers, 1];
      const reports: ProofReport[] = [];
      for (const threads of order) {
        const proof = await timed(() => proveLog(log, { trustedKey: key.publicKey, workers: threads }));
        if (!proof.value.ok) throw new Error(`the proof on ${threads} thread(s) failed: ${JSON.stringify(proof.value.difference)}`);
        reports.push(proof.value);
        const into = threads === 1 ? one : many;
        into.seconds.push(proof.seconds);
        into.cores.push(proof.cpu / proof.seconds);
        checkpoints = proof.value.checkpoints;
      }
      if (JSON.stringify(reports[0]) !== JSON.stringify(reports[1])) throw new Error('the proof on one thread and on workers reported differently');
      serial.push((await timed(() => serialPart(log, written, throughs))).seconds);
      for (const threads of order) (threads === 1 ? commandOne : commandMany).push(await command(threads));
      process.stderr.write(
        `run ${i}: proof ${one.seconds[i - 1]!.toFixed(2)} s on one thread, ${many.seconds[i - 1]!.toFixed(2)} s on ${workers} workers; ` +
          `shoal audit verify ${commandOne[i - 1]!.toFixed(2)} s --workers 1, ${commandMany[i - 1]!.toFixed(2)} s --workers ${workers}\n`,
      );
    }

    const PROOF_ONE = 'proof on one thread (proveLog, in this process)';
    const PROOF_MANY = `proof by segments on ${workers} worker threads`;
    const SERIAL = 'what stays on the reading thread: one read, the replay, a state hash a checkpoint';
    const COMMAND_ONE = 'shoal audit verify --workers 1 (its own process: proof, then the replays)';
    const COMMAND_MANY = `shoal audit verify --workers ${workers}`;
    const measures: Measure[] = [
      { name: PROOF_ONE, unit: 's', runs: one.seconds, better: 'lower' },
      { name: PROOF_MANY, unit: 's', runs: many.seconds, better: 'lower' },
      { name: 'proof speed-up (one thread / workers, same run)', unit: 'ratio', runs: one.seconds.map((s, i) => s / many.seconds[i]!), better: 'higher' },
      { name: SERIAL, unit: 's', runs: serial, better: 'lower' },
      { name: 'bound for the proof speed-up on any number of cores (one thread / what stays on it, same run)', unit: 'ratio', runs: one.seconds.map((s, i) => s / serial[i]!), better: 'higher' },
      { name: 'cores busy, proof on one thread (CPU time / wall time)', unit: 'cores', runs: one.cores, better: 'higher' },
      { name: `cores busy, proof on ${workers} workers`, unit: 'cores', runs: many.cores, better: 'higher' },
      { name: COMMAND_ONE, unit: 's', runs: commandOne, better: 'lower' },
      { name: COMMAND_MANY, unit: 's', runs: commandMany, better: 'lower' },
      { name: 'shoal audit verify speed-up (--workers 1 / N, same run)', unit: 'ratio', runs: commandOne.map((s, i) => s / commandMany[i]!), better: 'higher' },
    ];
    const r = result('verify', 'Verify: the audit proof on one core and on every core', { records: written, checkpoints, 'records between checkpoints': every, workers, runs, 'log bytes': bytes, shoal: entry.description }, measures);
    const median = (name: string): number => r.measures.find((m) => m.name === name)!.median;
    publish({
      ...r,
      notes: [
        `The proof: ${median(PROOF_ONE).toFixed(1)} s on one thread, ${median(PROOF_MANY).toFixed(1)} s on ${workers} workers (${(median(PROOF_ONE) / median(PROOF_MANY)).toFixed(2)}× as fast, medians); the whole command ${median(COMMAND_ONE).toFixed(1)} → ${median(COMMAND_MANY).toFixed(1)} s. ` +
          `What stays on the reading thread takes ${median(SERIAL).toFixed(1)} s alone: no number of workers brings the proof under that (${(median(PROOF_ONE) / median(SERIAL)).toFixed(2)}× the one-thread proof's speed).`,
        'On workers the proof reads the log once instead of twice; the workers take the digests, the chain and the signatures, segment by segment; this thread keeps the read and the replay to each checkpoint for its state hash, which needs every record before it in order. The replays of the whole log that follow in `shoal audit verify` (twice, and from snapshots) stay on one thread for the same reason.',
        `Load average (1 min) as each run began: ${load.map((l) => l.toFixed(1)).join(' · ')} on ${cpus().length} cores shared with other work: compare the speed-ups, measured in the same run, rather than seconds across runs.`,
      ],
    });
  } finally {
    await log.close();
    await broker.stop();
    await rm(scratch, { recursive: true, force: true });
  }
};
