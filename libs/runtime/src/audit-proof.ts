/**
 * Proving the log: the audit chain recomputed from the records, every checkpoint's
 * signature checked against the key in force (the auditor's, then each announced by the
 * one before), the state hash replayed to each checkpoint's offset, and the records lined
 * up against the digests the checkpoints signed. On failure it names the first offset
 * where the log differs from the signed history, and how: a record changed, removed,
 * inserted, a pair reordered, or the tail cut off (against a checkpoint the auditor
 * expects, e.g. the end a previous verify reported).
 *
 * The log is read on this thread (audit-proof-evidence.ts) or by segments between
 * checkpoints on worker threads (audit-proof-parallel.ts); the judgement below is the same
 * for both, and so is the report.
 */
import { firstDifference, splitDigests } from '@shoal/domain';
import type { DifferenceKind, DigestAt } from '@shoal/domain';
import type { EventLog } from '@shoal/eventlog';
import { keyFingerprint } from './audit-keys';
import type { CheckpointAt } from './audit-checkpointer';
import { readInOrder } from './audit-proof-evidence';
import type { ExpectedPoint } from './audit-proof-evidence';
import { readInParallel } from './audit-proof-parallel';

export type { ExpectedPoint } from './audit-proof-evidence';

export interface ProveOptions {
  /** The public key the auditor trusts (SPKI DER base64); absent: the first checkpoint's, trusted on first use. */
  readonly trustedKey?: string;
  /** A point the log must still hold (the end a previous verify reported, or a checkpoint): cuts the tail off detectably. */
  readonly expect?: ExpectedPoint;
  /** Threads that check the log's segments side by side (audit-proof-pool.ts); 1, the default: this thread alone. */
  readonly workers?: number;
}

export type ProblemKind = DifferenceKind | 'signature' | 'key' | 'chain' | 'state' | 'malformed' | 'unsigned';

export interface Problem {
  readonly kind: ProblemKind;
  readonly offset: number;
  readonly detail: string;
}

export interface SigningKeyUse {
  readonly fingerprint: string;
  readonly publicKey: string;
  /** The offset of the first checkpoint signed by it (of the auditor's key: 0). */
  readonly since: number;
  readonly trust: 'given' | 'first use' | 'announced';
}

export interface ProofReport {
  readonly log: string;
  readonly records: number;
  readonly ok: boolean;
  readonly checkpoints: number;
  /** The last offset a valid checkpoint covers, in an unbroken run from 0; -1 for none. */
  readonly signedThrough: number;
  /** Records after signedThrough: not yet signed, so not proven. */
  readonly unsigned: number;
  readonly keys: readonly SigningKeyUse[];
  /** The chain at the log's end: give it as --expect to a later verify to catch a cut tail. */
  readonly end: ExpectedPoint;
  /** The first offset where the log differs from what was signed. */
  readonly difference?: Problem;
  readonly problems: readonly Problem[];
}

const ORDER: readonly ProblemKind[] = ['reordered', 'removed', 'inserted', 'changed', 'truncated', 'signature', 'key', 'malformed', 'chain', 'state', 'unsigned'];

/**
 * Proves the log (the module's comment says how). With `workers` above 1 it reads the log
 * once and checks it by segments on that many threads (audit-proof-parallel.ts); the
 * report is the same as on one thread, problem for problem.
 */
export const proveLog = async (log: EventLog, options: ProveOptions = {}): Promise<ProofReport> => {
  const records = await log.highWaterMark();
  const workers = options.workers ?? 1;
  const evidence = workers > 1 ? await readInParallel(log, records, { workers, ...(options.expect ? { expect: options.expect } : {}) }) : await readInOrder(log, records);
  const { actual, found } = evidence;
  const problems: Problem[] = [];

  // The checkpoints, in log order, under the key in force.
  const keys: SigningKeyUse[] = [];
  let inForce = options.trustedKey;
  if (inForce) keys.push({ fingerprint: keyFingerprint(inForce), publicKey: inForce, since: 0, trust: 'given' });
  const valid: CheckpointAt[] = [];
  for (const checkpoint of found) {
    const { data, offset } = checkpoint;
    if (!evidence.signatureHolds(checkpoint)) {
      problems.push({ kind: 'signature', offset, detail: `the checkpoint at offset ${offset} does not hold its key's signature: it was changed or forged` });
      continue;
    }
    if (inForce === undefined) {
      inForce = data.key;
      keys.push({ fingerprint: keyFingerprint(data.key), publicKey: data.key, since: offset, trust: 'first use' });
    }
    if (data.key !== inForce) {
      problems.push({ kind: 'key', offset, detail: `the checkpoint at offset ${offset} is signed by ${keyFingerprint(data.key)}, not by the key in force (${keyFingerprint(inForce)})` });
      continue;
    }
    const digests = splitDigests(data.digests);
    if (!digests || data.through < data.from || digests.length !== data.through - data.from + 1) {
      problems.push({ kind: 'malformed', offset, detail: `the checkpoint at offset ${offset} signs ${digests?.length ?? 'unreadable'} digests for offsets ${data.from}..${data.through}` });
      continue;
    }
    valid.push(checkpoint);
    if (data.next !== undefined && data.next !== inForce) {
      inForce = data.next;
      keys.push({ fingerprint: keyFingerprint(data.next), publicKey: data.next, since: offset, trust: 'announced' });
    }
  }

  // What was signed, offset by offset, in an unbroken run from 0.
  const signedAt = new Map<number, string>();
  for (const { data, offset } of valid) {
    const digests = splitDigests(data.digests)!;
    digests.forEach((digest, i) => {
      const at = data.from + i;
      const before = signedAt.get(at);
      if (before !== undefined && before !== digest) problems.push({ kind: 'changed', offset: at, detail: `two checkpoints (the later at offset ${offset}) signed different records at offset ${at}` });
      signedAt.set(at, digest);
    });
  }
  const signed: DigestAt[] = [];
  while (signedAt.has(signed.length)) signed.push({ offset: signed.length, digest: signedAt.get(signed.length)! });
  const signedThrough = signed.length - 1;
  const lastSigned = Math.max(-1, ...valid.map((c) => c.data.through));
  if (lastSigned > signedThrough) {
    problems.push({ kind: 'unsigned', offset: signed.length, detail: `no valid checkpoint covers offset ${signed.length}, yet checkpoints cover up to ${lastSigned}` });
  }
  const misplaced = firstDifference(actual, signed);
  if (misplaced) problems.push(misplaced);

  // The chain and the state at every checkpoint's `through` (and at the expected point).
  const wanted = new Set<number>(valid.map((c) => c.data.through));
  if (options.expect) wanted.add(options.expect.through);
  const { at, end } = await evidence.points(wanted);
  for (const { data, offset } of valid) {
    const here = at.get(data.through);
    if (!here) continue; // the log no longer reaches it: the digests say how
    if (here.chain !== data.chain) {
      problems.push({ kind: 'chain', offset: data.through, detail: `the chain through offset ${data.through} is ${here.chain}; the checkpoint at offset ${offset} signed ${data.chain}` });
    } else if (here.state !== data.state) {
      problems.push({ kind: 'state', offset: data.through, detail: `replay reaches state ${here.state || '(halted)'} after offset ${data.through}; the checkpoint at offset ${offset} signed ${data.state}` });
    }
  }
  if (options.expect) {
    const { through, chain: want } = options.expect;
    const here = at.get(through);
    if (!here) problems.push({ kind: 'truncated', offset: end.through + 1, detail: `the log ends at offset ${end.through + 1}; the auditor expects it to hold offset ${through}` });
    else if (here.chain !== want) problems.push({ kind: 'chain', offset: through, detail: `the chain through offset ${through} is ${here.chain}; the auditor expects ${want}` });
  }

  problems.sort((a, b) => a.offset - b.offset || ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));
  // A span no valid checkpoint covers follows from a problem with a checkpoint: that names the place.
  const difference = problems.find((problem) => problem.kind !== 'unsigned') ?? problems[0];
  return {
    log: log.description,
    records,
    ok: problems.length === 0,
    checkpoints: valid.length,
    signedThrough,
    unsigned: Math.max(0, actual.length - signed.length),
    keys,
    end,
    ...(difference ? { difference } : {}),
    problems,
  };
};
