/**
 * AuditCheckpointed: the writer that holds the checkpoint duty (the reaper's owner) signs
 * what the log held up to an offset. It carries the chain hash through that offset, the
 * state hash there, a short digest of every record it covers (to name the offset of a
 * change, not to prove it: the chain and the signature prove), and an Ed25519 signature
 * by the operator's key over checkpointMessage. It changes no state: a build that does not
 * know the type counts it poison and reaches the same state hash.
 */

/** Hex characters of each record's short digest in `digests`. */
export const RECORD_DIGEST_HEX = 12;

export interface AuditCheckpointed {
  /** The first offset covered: the one after the previous checkpoint's `through` (0 for the first). */
  readonly from: number;
  /** The last offset covered. */
  readonly through: number;
  /** The chain hash through `through` (hex SHA-256). */
  readonly chain: string;
  /** The state hash after every record through `through` is applied. */
  readonly state: string;
  /** The short digest of each record from `from` to `through`, in order, concatenated. */
  readonly digests: string;
  /** The signing key's public half: SPKI DER, base64. */
  readonly key: string;
  /** A new signing key announced by this one (SPKI DER, base64): the checkpoints after this are signed by it. */
  readonly next?: string;
  /** Ed25519 over checkpointMessage(cluster, this), base64. */
  readonly signature: string;
}

/** The exact text a checkpoint's signature covers: every field but the signature, and the cluster. */
export const checkpointMessage = (cluster: string, data: Omit<AuditCheckpointed, 'signature'>): string =>
  ['shoal audit checkpoint v1', cluster, data.from, data.through, data.chain, data.state, data.digests, data.key, data.next ?? ''].join('\n');
