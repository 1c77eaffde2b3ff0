/**
 * CPU profiles of a benchmark's processes (`--profile all|api,scheduler,…`, node's
 * --cpu-prof, written when a process exits) and a summary of one: the functions with the
 * most self time, with their file and share of the samples.
 *   node -r ./bin/register.js test/bench/profile-summary.ts <file.cpuprofile> [top]
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Node flags per process name for --profile; the profiles go to a folder per process in --profile-dir (default .shoal/bench-profiles), one file per thread. */
export const profileFlags = (argv: readonly string[]): ((name: string) => readonly string[]) => {
  const at = argv.indexOf('--profile');
  if (at < 0) return () => [];
  const wanted = (argv[at + 1] ?? '').split(',').filter(Boolean);
  if (wanted.length === 0) throw new Error('--profile expects all or a list of process names, e.g. --profile scheduler,api');
  const dirAt = argv.indexOf('--profile-dir');
  const dir = dirAt >= 0 && argv[dirAt + 1] ? argv[dirAt + 1]! : join(ROOT, '.shoal', 'bench-profiles');
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`CPU profiles of ${wanted.join(', ')} go to ${dir}\n`);
  // A folder per process and node's own file names (pid, thread): a process's worker threads
  // profile too, and under one given name the last thread to exit would overwrite the others.
  return (name) => (wanted.includes('all') || wanted.includes(name) || wanted.includes(name.replace(/-\d+$/, '')) ? ['--cpu-prof', '--cpu-prof-dir', join(dir, `${name}-${Date.now()}`)] : []);
};

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

export interface SelfTime {
  readonly fn: string;
  readonly where: string;
  readonly ms: number;
  readonly share: number;
}

/** Self time per function (name and file:line), most first. */
export const selfTimes = (profile: CpuProfile): SelfTime[] => {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, { fn: string; where: string; us: number }>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const node = byNode.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    if (!node) return;
    all += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.startsWith('file://') ? relative(ROOT, url.slice(7)) : url}:${lineNumber + 1}` : '';
    const key = `${functionName}@${where}`;
    const entry = totals.get(key) ?? { fn: functionName || '(anonymous)', where, us: 0 };
    entry.us += us;
    totals.set(key, entry);
  });
  return [...totals.values()].sort((a, b) => b.us - a.us).map((t) => ({ fn: t.fn, where: t.where, ms: t.us / 1e3, share: all > 0 ? t.us / all : 0 }));
};

if (require.main === module) {
  const [file, top = '25'] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: profile-summary.ts <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(`${file}: ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s profiled\n`);
  for (const t of selfTimes(profile).slice(0, Number(top))) {
    process.stdout.write(`${(t.share * 100).toFixed(1).padStart(5)}%  ${t.ms.toFixed(0).padStart(8)} ms  ${t.fn}  ${t.where}\n`);
  }
}
