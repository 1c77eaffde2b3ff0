/**
 * Decode: where a replay's time goes for each record once it is read, and what a compact
 * binary encoding would save of it. On --records (200,000) records of the realistic history
 * (history.ts: the mix a running cluster writes), each a fresh process of its own run:
 *
 * - JSON.parse of every record, the shape checks of the envelope and data (decodeValue on
 *   the parsed value), and evolve (the projection applying the decoded event);
 * - for TaskStatusesReported, the most common record (more than half of them): JSON.parse
 *   of exactly those records beside a binary form written and read by hand below — strings
 *   length-prefixed, numbers fixed-width, no key names — that yields the same objects
 *   (checked), and beside V8's own binary serializer (node:v8 deserialize).
 *
 * The binary form is a measuring stick, not a format Shoal writes: the fastest reader of a
 * record is one that knows its layout and does nothing else, so it bounds what any compact
 * encoding could save on decoding. Every time is the median µs a record of its run.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { deserialize, serialize } from 'node:v8';
import { decodeValue } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
import { intOption } from './args';
import { benchHistory } from './history';
import { publish, result } from './report';
import type { Measure } from './report';

const ROOT = join(__dirname, '..', '..');

interface Status {
  id: string;
  state: number;
  at: string;
  message?: string;
  err?: string;
  exitCode?: number;
}
interface StatusRecord {
  id: string;
  type: string;
  v: number;
  cluster: string;
  at: string;
  by: { component: string; instance: string; term: number };
  seq: number;
  data: { nodeId: string; statuses: Status[] };
}

/** A string or a number left out. */
const ABSENT = 0xffff;

/** The binary form of a TaskStatusesReported: its fields in a fixed order, strings as u16 length + UTF-8, numbers as u32. */
export const writeStatusRecord = (record: StatusRecord): Buffer => {
  const parts: Buffer[] = [];
  const text = (value: string | undefined): void => {
    const head = Buffer.allocUnsafe(2);
    if (value === undefined) {
      head.writeUInt16LE(ABSENT);
      parts.push(head);
      return;
    }
    const bytes = Buffer.from(value, 'utf8');
    head.writeUInt16LE(bytes.length);
    parts.push(head, bytes);
  };
  const number = (value: number): void => {
    const bytes = Buffer.allocUnsafe(4);
    bytes.writeUInt32LE(value);
    parts.push(bytes);
  };
  text(record.id);
  text(record.type);
  number(record.v);
  text(record.cluster);
  text(record.at);
  text(record.by.component);
  text(record.by.instance);
  number(record.by.term);
  number(record.seq);
  text(record.data.nodeId);
  number(record.data.statuses.length);
  for (const status of record.data.statuses) {
    text(status.id);
    number(status.state);
    text(status.at);
    text(status.message);
    text(status.err);
    number(status.exitCode ?? ABSENT);
  }
  return Buffer.concat(parts);
};

/** Reads what writeStatusRecord wrote: the same object JSON.parse gives of the record's JSON. */
export const readStatusRecord = (bytes: Buffer): StatusRecord => {
  let at = 0;
  const text = (): string | undefined => {
    const length = bytes.readUInt16LE(at);
    at += 2;
    if (length === ABSENT) return undefined;
    const value = bytes.toString('utf8', at, at + length);
    at += length;
    return value;
  };
  const number = (): number => {
    const value = bytes.readUInt32LE(at);
    at += 4;
    return value;
  };
  const id = text()!;
  const type = text()!;
  const v = number();
  const cluster = text()!;
  const time = text()!;
  const component = text()!;
  const instance = text()!;
  const term = number();
  const seq = number();
  const nodeId = text()!;
  const statuses: Status[] = new Array<Status>(number());
  for (let i = 0; i < statuses.length; i++) {
    const status: Status = { id: text()!, state: number(), at: text()! };
    const message = text();
    const err = text();
    const exitCode = number();
    if (message !== undefined) status.message = message;
    if (err !== undefined) status.err = err;
    if (exitCode !== ABSENT) status.exitCode = exitCode;
    statuses[i] = status;
  }
  return { id, type, v, cluster, at: time, by: { component, instance, term }, seq, data: { nodeId, statuses } };
};

/** µs a record that `work` took over `count` records. */
const timed = (count: number, work: () => void): number => {
  const started = performance.now();
  work();
  return ((performance.now() - started) * 1_000) / count;
};

/** One run, in this process: the measures of one pass over `records` records. */
const oneRun = (records: number): Record<string, number> => {
  const all = [...benchHistory({ records })];
  const statusJson = all.filter((value) => value.includes('"type":"TaskStatusesReported"'));
  const statusBinary = statusJson.map((value) => writeStatusRecord(JSON.parse(value) as StatusRecord));
  const statusV8 = statusJson.map((value) => serialize(JSON.parse(value)));
  for (let i = 0; i < statusJson.length; i += 97) {
    if (JSON.stringify(readStatusRecord(statusBinary[i]!)) !== JSON.stringify(JSON.parse(statusJson[i]!))) throw new Error(`the binary form of record ${i} does not read back as its JSON`);
  }
  // Each record parsed and let go, as a replay does: kept, a pass's objects would add the
  // garbage collector's work on a heap that holds them all.
  const parse = timed(all.length, () => all.forEach((value) => JSON.parse(value)));
  const parsed = all.map((value) => JSON.parse(value) as unknown);
  let decoded: ReturnType<typeof decodeValue>[] = [];
  const shapes = timed(all.length, () => {
    decoded = parsed.map((value) => decodeValue(value));
  });
  const projection = new Projection();
  const evolve = timed(all.length, () => decoded.forEach((one, offset) => projection.applyDecoded(offset, one)));
  if (projection.state.tasks.size === 0) throw new Error('the history evolved into no tasks');
  return {
    parse,
    shapes,
    evolve,
    statusShare: statusJson.length / all.length,
    statusChars: statusJson.reduce((sum, value) => sum + value.length, 0) / statusJson.length,
    statusBytes: statusBinary.reduce((sum, bytes) => sum + bytes.length, 0) / statusBinary.length,
    statusParse: timed(statusJson.length, () => statusJson.forEach((value) => JSON.parse(value))),
    statusBinary: timed(statusBinary.length, () => statusBinary.forEach((bytes) => readStatusRecord(bytes))),
    statusV8: timed(statusV8.length, () => statusV8.forEach((bytes) => deserialize(bytes))),
  };
};

export const decodeBench = async (argv: readonly string[]): Promise<void> => {
  const records = intOption(argv, 'records', 200_000);
  const runs = intOption(argv, 'runs', 3);
  const results: Record<string, number>[] = [];
  for (let run = 0; run < runs; run++) {
    // A fresh process a run: no run warms the next one's code or heap.
    const out = execFileSync(process.execPath, ['--max-old-space-size=8192', '-r', join(ROOT, 'bin', 'register.js'), __filename, '--one-run', String(records)], { cwd: ROOT, encoding: 'utf8' });
    results.push(JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>);
    process.stderr.write(`run ${run + 1}: ${JSON.stringify(results[run])}\n`);
  }
  const each = (key: string): number[] => results.map((r) => r[key]!);
  const ratio = (a: string, b: string): number[] => results.map((r) => r[a]! / r[b]!);
  const measures: Measure[] = [
    { name: 'JSON.parse of a record (every record of the history)', unit: 'µs', runs: each('parse'), better: 'lower' },
    { name: 'shape checks of the parsed record (envelope and data)', unit: 'µs', runs: each('shapes'), better: 'lower' },
    { name: 'evolve: the projection applying the decoded event', unit: 'µs', runs: each('evolve'), better: 'lower' },
    { name: 'TaskStatusesReported: share of the records', unit: 'ratio', runs: each('statusShare'), better: 'higher' },
    { name: 'TaskStatusesReported: characters of JSON a record', unit: 'chars', runs: each('statusChars'), better: 'lower' },
    { name: 'TaskStatusesReported: bytes a record in the binary form', unit: 'bytes', runs: each('statusBytes'), better: 'lower' },
    { name: 'TaskStatusesReported: JSON.parse of a record', unit: 'µs', runs: each('statusParse'), better: 'lower' },
    { name: 'TaskStatusesReported: the binary form read by hand', unit: 'µs', runs: each('statusBinary'), better: 'lower' },
    { name: "TaskStatusesReported: V8's serializer (node:v8 deserialize)", unit: 'µs', runs: each('statusV8'), better: 'lower' },
    { name: 'TaskStatusesReported: binary read / JSON.parse', unit: 'ratio', runs: ratio('statusBinary', 'statusParse'), better: 'lower' },
    { name: 'evolve / (JSON.parse + shape checks + evolve)', unit: 'ratio', runs: results.map((r) => r.evolve! / (r.parse! + r.shapes! + r.evolve!)), better: 'lower' },
  ];
  publish(result('decode', "Decode: where a replayed record's time goes, and what a binary encoding would save of it", { records, runs }, measures));
};

if (process.argv[2] === '--one-run') process.stdout.write(`${JSON.stringify(oneRun(Number(process.argv[3])))}\n`);
