/**
 * The audit chain: a running SHA-256 over every record of the log, in order, that any
 * consumer can compute from the records alone.
 *
 *   link(-1) = 64 zeros
 *   link(n)  = SHA-256( link(n-1) ‖ value(n) ‖ "\n" ‖ offset(n) )   (value: the record's bytes, UTF-8)
 *
 * The offset is read from the end, after the last "\n", so no two (value, offset) pairs
 * give the same input. A checkpoint signs link(through); a changed, removed, inserted or
 * reordered record before `through`, or a different offset, changes it.
 *
 * Each record also has a short digest of its bytes alone (no offset): checkpoints carry
 * them so a verifier can line the log up against what was signed and name where it differs.
 */
import { RECORD_DIGEST_HEX } from '@shoal/contracts';
import { newSha256 } from '../hash/sha256';

export const CHAIN_START = '0'.repeat(64);

/** The chain hash after the record at `offset` with bytes `value`, from the one before it. */
export const chainLink = (previous: string, offset: number, value: string): string => {
  const hash = newSha256();
  hash.update(previous);
  hash.update(value);
  hash.update(`\n${offset}`);
  return hash.hex();
};

/** A record's short digest: its bytes' SHA-256, the first RECORD_DIGEST_HEX hex digits. */
export const recordDigest = (value: string): string => {
  const hash = newSha256();
  hash.update(value);
  return hash.hex().slice(0, RECORD_DIGEST_HEX);
};

/** The digests a checkpoint carries, split back into one per record. */
export const splitDigests = (digests: string): string[] | undefined => {
  if (digests.length % RECORD_DIGEST_HEX !== 0 || !/^[0-9a-f]*$/.test(digests)) return undefined;
  const out: string[] = [];
  for (let i = 0; i < digests.length; i += RECORD_DIGEST_HEX) out.push(digests.slice(i, i + RECORD_DIGEST_HEX));
  return out;
};

/** The chain over records in order, from the start (or from a link known at an offset). */
export class AuditChain {
  constructor(
    private linkValue: string = CHAIN_START,
    /** The offset `linkValue` is the chain hash through; -1 before any record. */
    private throughValue = -1,
  ) {}

  get link(): string {
    return this.linkValue;
  }

  get through(): number {
    return this.throughValue;
  }

  /** Adds the record at `offset`; returns its link. */
  add(offset: number, value: string): string {
    this.linkValue = chainLink(this.linkValue, offset, value);
    this.throughValue = offset;
    return this.linkValue;
  }
}
