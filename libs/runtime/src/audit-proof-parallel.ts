/**
 * The proof's read on every core. One pass over the log cuts it into segments: at each
 * checkpoint's `through` (a checkpoint lands after the records it covers, so its segment
 * is complete when it is read), at the point the auditor expects, and every LONGEST
 * records where nothing else cuts. Each segment goes to the pool (audit-proof-pool.ts),
 * where a worker digests its records, chains them on from the link the checkpoint before
 * it claims, and checks the signatures of the checkpoints among them; meanwhile this
 * thread replays it, in order, for the state hash at its end. The state stays on this
 * thread because a segment's state is the whole log's before it, which only a replay in
 * order gives.
 *
 * The segments are joined in offset order, and the evidence is the read in order's,
 * offset for offset: a segment's chain counts only if the link it started from is the one
 * the segments before it reached; from the first that did not (the log differs there, or
 * a checkpoint claims a wrong link), the chain is read again on this thread. An offset the
 * proof asks for that no segment ends at (a checkpoint overlapping another, or covering
 * itself) sends the chain and the state back to the read in order.
 */
import { AuditChain, CHAIN_START, Projection, splitDigests } from '@shoal/domain';
import type { DigestAt } from '@shoal/domain';
import type { EventLog, LogRecord } from '@shoal/eventlog';
import { MAX_CHECKPOINT_RECORDS, checkpointIn } from './audit-checkpointer';
import type { CheckpointAt } from './audit-checkpointer';
import { chainThrough, eachRecordOf } from './audit-proof-evidence';
import type { ExpectedPoint, ProofEvidence, ProofPoint, ProofPoints } from './audit-proof-evidence';
import { SegmentPool } from './audit-proof-pool';
import type { SegmentCheck } from './audit-proof-segment';

/** The most records in a segment: where no checkpoint cuts (an unsigned stretch), the log is cut here. */
const LONGEST = 2 * MAX_CHECKPOINT_RECORDS;
/** Segments sent to the pool and not yet checked, per worker, before the read waits. */
const AHEAD = 2;

interface Cut {
  readonly offsets: readonly number[];
  /** The chain through the record before the first, as claimed (by the checkpoint that cut before it, or the auditor); absent: no claim. */
  readonly link?: string;
  /** The state hash after the last record ('' once replay halted); absent for the tail, which nothing asks the state of. */
  readonly state?: string;
  readonly check: Promise<SegmentCheck>;
}

const last = (offsets: readonly number[]): number => offsets[offsets.length - 1]!;

export const readInParallel = async (log: EventLog, records: number, options: { readonly workers: number; readonly expect?: ExpectedPoint }): Promise<ProofEvidence> => {
  const pool = new SegmentPool(options.workers);
  try {
    const projection = new Projection(undefined, 0, { keepRefusals: 0 });
    const found: CheckpointAt[] = [];
    const cuts: Cut[] = [];
    let open: LogRecord[] = [];
    let claim: string | undefined = CHAIN_START;

    /** Sends the open records through `through` to the pool, replays them unless they are the tail; `next` is the link claimed through `through`. */
    const cut = (through: number, next: string | undefined, tail = false): void => {
      const count = open.findIndex((record) => record.offset > through);
      const segment = count < 0 ? open : open.slice(0, count);
      if (segment.length === 0) return;
      open = count < 0 ? [] : open.slice(count);
      const offsets = segment.map((record) => record.offset);
      const check = pool.check({ offsets, values: segment.map((record) => record.value), ...(claim !== undefined ? { link: claim } : {}) });
      let state: string | undefined;
      if (!tail) {
        for (const record of segment) projection.apply(record);
        state = projection.halted ? '' : projection.hash();
      }
      cuts.push({ offsets, ...(claim !== undefined ? { link: claim } : {}), ...(state !== undefined ? { state } : {}), check });
      claim = next;
    };

    let waited = 0;
    const visit = (record: LogRecord): void => {
      open.push(record);
      const checkpoint = checkpointIn(record);
      if (checkpoint) {
        found.push(checkpoint);
        if (checkpoint.data.through < record.offset) cut(checkpoint.data.through, checkpoint.data.chain);
      }
      if (record.offset === options.expect?.through) cut(record.offset, options.expect.chain);
      if (open.length >= LONGEST) cut(record.offset, undefined);
    };
    // The read waits while the workers are AHEAD segments each behind it.
    await eachRecordOf(log, records, 0, visit, async () => {
      while (pool.pending > AHEAD * pool.size) await cuts[waited++]!.check;
    });
    cut(Infinity, undefined, true);
    const checks = await Promise.all(cuts.map((segment) => segment.check));
    return evidenceOf(log, records, found, cuts, checks);
  } finally {
    await pool.close();
  }
};

/** The segments, checked, joined in offset order. */
const evidenceOf = (log: EventLog, records: number, found: readonly CheckpointAt[], cuts: readonly Cut[], checks: readonly SegmentCheck[]): ProofEvidence => {
  const actual: DigestAt[] = [];
  const holds = new Map<number, boolean>();
  cuts.forEach(({ offsets }, i) => {
    const digests = splitDigests(checks[i]!.digests)!;
    offsets.forEach((offset, j) => actual.push({ offset, digest: digests[j]! }));
    for (const [offset, signed] of checks[i]!.signatures) holds.set(offset, signed);
  });
  return {
    actual,
    found,
    signatureHolds: (checkpoint) => holds.get(checkpoint.offset) === true,
    points: async (wanted) => pointsOf(log, records, wanted, cuts, checks),
  };
};

/** The chain and the state through `wanted`, from the segments' ends where each started from the true chain. */
const pointsOf = async (log: EventLog, records: number, wanted: ReadonlySet<number>, cuts: readonly Cut[], checks: readonly SegmentCheck[]): Promise<ProofPoints> => {
  const states = new Map<number, string>();
  for (const { offsets, state } of cuts) if (state !== undefined) states.set(last(offsets), state);
  const held = (offset: number): boolean => cuts.some(({ offsets }) => offsets[0]! <= offset && offset <= last(offsets) && offsets.includes(offset));
  if ([...wanted].some((offset) => !states.has(offset) && held(offset))) return chainThrough(log, records, wanted);

  const at = new Map<number, ProofPoint>();
  let chain = new AuditChain();
  for (const [i, { offsets, link }] of cuts.entries()) {
    const { end } = checks[i]!;
    if (link !== chain.link || end === undefined) {
      const rest = await chainThrough(log, records, wanted, chain, states);
      return { at: new Map([...at, ...rest.at]), end: rest.end };
    }
    chain = new AuditChain(end, last(offsets));
    if (wanted.has(chain.through)) at.set(chain.through, { chain: end, state: states.get(chain.through)! });
  }
  return { at, end: { through: chain.through, chain: chain.link } };
};
