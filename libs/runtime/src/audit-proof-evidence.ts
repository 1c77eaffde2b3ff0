/**
 * What the proof reads from the log, and the read on one thread. The proof
 * (audit-proof.ts) judges the evidence the same way however it was read: every record's
 * short digest, the checkpoints, whether each holds its signature, and the chain and the
 * state through the offsets it asks for. Read here in two passes, as the log's order
 * gives it; read by segments on every core in audit-proof-parallel.ts.
 */
import { AuditChain, Projection, recordDigest } from '@shoal/domain';
import type { DigestAt } from '@shoal/domain';
import type { EventLog, LogRecord } from '@shoal/eventlog';
import { checkpointIn } from './audit-checkpointer';
import type { CheckpointAt } from './audit-checkpointer';
import { checkpointSignatureHolds } from './audit-keys';

/** Records read at a time. */
const PROOF_CHUNK = 5_000;

/** A point of the chain the auditor holds: the chain hash through an offset. */
export interface ExpectedPoint {
  readonly through: number;
  readonly chain: string;
}

/** The chain and the state (its hash; '' once replay halted) through an offset. */
export interface ProofPoint {
  readonly chain: string;
  readonly state: string;
}

export interface ProofPoints {
  /** Each offset asked for that the log holds. */
  readonly at: ReadonlyMap<number, ProofPoint>;
  /** The chain at the log's end. */
  readonly end: ExpectedPoint;
}

export interface ProofEvidence {
  /** Every record's short digest, in log order. */
  readonly actual: readonly DigestAt[];
  /** The checkpoints, in log order. */
  readonly found: readonly CheckpointAt[];
  /** Whether a checkpoint found holds its key's signature over its fields. */
  signatureHolds(checkpoint: CheckpointAt): boolean;
  /** The chain and the state through each offset of `wanted` (offsets past the log's end are left out). */
  points(wanted: ReadonlySet<number>): Promise<ProofPoints>;
}

/** Every record from `from` to `records`, a chunk at a time; `between` is awaited after each chunk. */
export const eachRecordOf = async (log: EventLog, records: number, from: number, visit: (record: LogRecord) => void, between?: () => Promise<void>): Promise<void> => {
  for (let position = from; position < records; ) {
    const batch = await log.read(position, { to: records, max: PROOF_CHUNK });
    if (batch.length === 0) break;
    for (const record of batch) visit(record);
    position = batch[batch.length - 1]!.offset + 1;
    await between?.();
  }
};

/**
 * The chain and the state through each offset of `wanted`: the log read from the record
 * after `chain`'s to `records`, chained on; the states taken from `states` when given
 * (they were replayed already), else replayed here from offset 0 (then `chain` starts there too).
 */
export const chainThrough = async (
  log: EventLog,
  records: number,
  wanted: ReadonlySet<number>,
  chain = new AuditChain(),
  states?: ReadonlyMap<number, string>,
): Promise<ProofPoints> => {
  const at = new Map<number, ProofPoint>();
  const projection = states ? undefined : new Projection(undefined, 0, { keepRefusals: 0 });
  await eachRecordOf(log, records, chain.through + 1, (record) => {
    const { offset } = record;
    chain.add(offset, record.value);
    projection?.apply(record);
    if (wanted.has(offset)) at.set(offset, { chain: chain.link, state: projection ? (projection.halted ? '' : projection.hash()) : states!.get(offset)! });
  });
  return { at, end: { through: chain.through, chain: chain.link } };
};

/** The log on this thread: a pass for the digests and the checkpoints, a pass for the chain and the state. */
export const readInOrder = async (log: EventLog, records: number): Promise<ProofEvidence> => {
  const actual: DigestAt[] = [];
  const found: CheckpointAt[] = [];
  await eachRecordOf(log, records, 0, (record) => {
    actual.push({ offset: record.offset, digest: recordDigest(record.value) });
    const checkpoint = checkpointIn(record);
    if (checkpoint) found.push(checkpoint);
  });
  return {
    actual,
    found,
    signatureHolds: ({ cluster, data }) => checkpointSignatureHolds(cluster, data),
    points: (wanted) => chainThrough(log, records, wanted),
  };
};
