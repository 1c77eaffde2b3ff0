/**
 * One segment of the log checked on its own, as a worker thread does it: the records
 * between two signed checkpoints, their short digests, the chain over them from the link
 * the previous checkpoint signed, and the signature of every checkpoint among them. It
 * needs nothing from the records before it, so segments are checked side by side; the
 * proof then joins them in offset order (audit-proof-parallel.ts).
 */
import { chainLink, recordDigest } from '@shoal/domain';
import { checkpointIn } from './audit-checkpointer';
import { checkpointSignatureHolds } from './audit-keys';

export interface Segment {
  /** The records' offsets, increasing. */
  readonly offsets: readonly number[];
  /** The records' bytes, as stored. */
  readonly values: readonly string[];
  /** The chain through the record before the first, as a checkpoint claims it; absent: no claim, the chain is left to the proof. */
  readonly link?: string;
}

export interface SegmentCheck {
  /** Every record's short digest, in order, joined as a checkpoint carries them (`splitDigests` parts them). */
  readonly digests: string;
  /** The chain through the last record, from `link`; absent without one. */
  readonly end?: string;
  /** The offsets of the checkpoints among the records, each with whether its key's signature holds. */
  readonly signatures: readonly (readonly [offset: number, holds: boolean])[];
}

export const checkSegment = ({ offsets, values, link }: Segment): SegmentCheck => {
  const digests: string[] = [];
  const signatures: [number, boolean][] = [];
  let end = link;
  values.forEach((value, i) => {
    const offset = offsets[i]!;
    digests.push(recordDigest(value));
    if (end !== undefined) end = chainLink(end, offset, value);
    const checkpoint = checkpointIn({ offset, value });
    if (checkpoint) signatures.push([offset, checkpointSignatureHolds(checkpoint.cluster, checkpoint.data)]);
  });
  return { digests: digests.join(''), ...(end !== undefined ? { end } : {}), signatures };
};

