/** The auditor's inputs to a proof, as the CLI takes them: the trusted key, the expected end, the threads to check it on. */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { readPublicKey } from '@shoal/runtime';
import type { ExpectedPoint, ProveOptions } from '@shoal/runtime';

export interface ProofFlags {
  /** A PEM file holding the operator's key (either half). */
  readonly key?: string;
  /** "<offset>:<chain hash>", or a file with a previous `shoal audit verify --json` report. */
  readonly expect?: string;
  /** Threads that check the log by segments between checkpoints (1: this thread alone). */
  readonly workers?: number;
}

/** --workers: a whole number from 1. */
export const parseWorkers = (value: string): number => {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('expected a whole number from 1, e.g. --workers 4 (1: one thread)');
  return Number(value);
};

const point = (value: unknown): ExpectedPoint | undefined => {
  const p = value as Partial<ExpectedPoint> | undefined;
  return p && Number.isSafeInteger(p.through) && typeof p.chain === 'string' && /^[0-9a-f]{64}$/.test(p.chain) ? { through: p.through!, chain: p.chain } : undefined;
};

/** The expected point from --expect; throws with what to give instead. */
export const parseExpect = (value: string): ExpectedPoint => {
  const inline = /^(\d+):([0-9a-f]{64})$/.exec(value);
  if (inline) return { through: Number(inline[1]), chain: inline[2]! };
  let text: string;
  try {
    text = readFileSync(value, 'utf8');
  } catch {
    throw new Error(`--expect ${value}: neither <offset>:<64 hex chain hash> nor a readable report file`);
  }
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch {
    throw new Error(`--expect ${value}: not JSON; give the file \`shoal audit verify --json\` wrote, or <offset>:<chain hash>`);
  }
  const r = report as { end?: unknown; proof?: { end?: unknown } };
  const found = point(r.end) ?? point(r.proof?.end);
  if (!found) throw new Error(`--expect ${value}: the report has no "end" ({ through, chain }); give the file \`shoal audit verify --json\` wrote`);
  return found;
};

export const proveOptions = (flags: ProofFlags): ProveOptions => ({
  ...(flags.key ? { trustedKey: readPublicKey(flags.key) } : {}),
  ...(flags.expect ? { expect: parseExpect(flags.expect) } : {}),
  ...(flags.workers ? { workers: flags.workers } : {}),
});
