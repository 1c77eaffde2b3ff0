/**
 * What every benchmark reports: the machine, the command, each measure's runs and median,
 * as a table for people and JSON for machines. `--write` keeps the result in
 * docs/benchmarks/<name>.json and regenerates docs/benchmarks.md from every kept result.
 */
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DOCS = join(ROOT, 'docs');
const KEPT = join(DOCS, 'benchmarks');

export interface Measure {
  readonly name: string;
  readonly unit: string;
  /** One value per run. */
  readonly runs: readonly number[];
  /** Higher is better (rates) or lower is better (durations, bytes). */
  readonly better: 'higher' | 'lower';
}

export interface BenchResult {
  readonly bench: string;
  readonly title: string;
  readonly date: string;
  readonly command: string;
  readonly machine: string;
  readonly params: Readonly<Record<string, string | number>>;
  readonly measures: readonly (Measure & { readonly median: number })[];
  /** Sentences that read the numbers: ratios, goals met or missed. */
  readonly notes: readonly string[];
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export const machine = (): string => {
  const cpu = cpus();
  const java = (() => {
    try {
      return execSync('java -version 2>&1', { encoding: 'utf8' }).split('\n')[0]?.trim() ?? '';
    } catch {
      return 'no java';
    }
  })();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${java}`;
};

export const result = (
  bench: string,
  title: string,
  params: Record<string, string | number>,
  measures: readonly Measure[],
  notes: readonly string[] = [],
): BenchResult => ({
  bench,
  title,
  date: new Date().toISOString().slice(0, 10),
  command: `npm run bench -- ${process.argv.slice(2).filter((a) => a !== '--write' && a !== '--json').join(' ')}`.trim(),
  machine: machine(),
  params,
  measures: measures.map((m) => ({ ...m, median: median(m.runs) })),
  notes,
});

const fmt = (value: number): string =>
  Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en-US') : value.toLocaleString('en-US', { maximumFractionDigits: 2 });

export const table = (r: BenchResult): string => {
  const lines = [
    `### ${r.title}`,
    '',
    `${r.date} · \`${r.command}\` · ${r.machine}`,
    '',
    `Parameters: ${Object.entries(r.params).map(([k, v]) => `${k} = ${typeof v === 'number' ? fmt(v) : v}`).join(', ')}`,
    '',
    '| measure | median | runs | unit |',
    '|---|---:|---|---|',
    ...r.measures.map((m) => `| ${m.name} | ${fmt(m.median)} | ${m.runs.map(fmt).join(' · ')} | ${m.unit} |`),
  ];
  if (r.notes.length > 0) lines.push('', ...r.notes.map((n) => `- ${n}`));
  return lines.join('\n');
};

/** Prints the result (a table, or JSON with --json) and keeps it with --write. */
export const publish = (r: BenchResult, argv: readonly string[] = process.argv): void => {
  process.stdout.write(argv.includes('--json') ? `${JSON.stringify(r, null, 2)}\n` : `\n${table(r)}\n`);
  if (!argv.includes('--write')) return;
  mkdirSync(KEPT, { recursive: true });
  writeFileSync(join(KEPT, `${r.bench}.json`), `${JSON.stringify(r, null, 2)}\n`);
  writeDocs();
};

const ORDER = ['scheduler', 'replay', 'e2e', 'failover', 'heartbeats', 'memory'];

/** docs/benchmarks.md from every kept result. */
export const writeDocs = (): void => {
  const kept = existsSync(KEPT)
    ? readdirSync(KEPT)
        .filter((f) => f.endsWith('.json'))
        .map((f) => JSON.parse(readFileSync(join(KEPT, f), 'utf8')) as BenchResult)
        .sort((a, b) => (ORDER.indexOf(a.bench) + 100 * +(ORDER.indexOf(a.bench) < 0)) - (ORDER.indexOf(b.bench) + 100 * +(ORDER.indexOf(b.bench) < 0)))
    : [];
  const body = [
    '# Benchmarks',
    '',
    'Measured with `npm run bench -- <name> --write` (never part of `npm test`). Each table gives',
    'the median over its runs, every run, the machine and the date. Ratios compare numbers',
    'taken in the same run. Raw results: `docs/benchmarks/<name>.json`.',
    '',
    ...kept.flatMap((r) => [table(r), '']),
  ];
  writeFileSync(join(DOCS, 'benchmarks.md'), body.join('\n'));
};
