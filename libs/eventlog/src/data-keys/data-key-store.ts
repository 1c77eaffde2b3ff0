/**
 * The store beside the log that keeps each secret's data key (wrapped by the cluster's key)
 * and can forget it for good: the log keeps every record forever, so a secret's sealed bytes
 * on it can be made unreadable only by destroying the key that opens them
 * (crypto-shredding). Adapters: a compacted Kafka topic (a tombstone, then the log cleaner,
 * removes the key from every broker) and a directory of files for the embedded log.
 */

/** A data key as the store keeps it: wrapped, and when it was put. */
export interface StoredDataKey {
  /** The data key wrapped by the cluster's key (nonce ‖ ciphertext ‖ tag). */
  readonly wrapped: Buffer;
  /** When it was put (ms since the epoch): a key whose secret never reached the log is swept after a while. */
  readonly at: number;
}

export interface DataKeyStore {
  /** Where the keys live, for log lines. */
  readonly description: string;
  /** Keeps the wrapped data key of secret `id`; resolves once it is durable. */
  put(id: string, wrapped: Buffer): Promise<void>;
  /** The key of `id` as the store holds it now, caught up with every put and destroy acknowledged before the call. */
  get(id: string): Promise<StoredDataKey | undefined>;
  /** The key of `id` as last read, without waiting (a follower keeps it fresh); undefined if not (yet) known. */
  peek(id: string): StoredDataKey | undefined;
  /** Every key the store holds now, by secret id. */
  list(): Promise<ReadonlyMap<string, StoredDataKey>>;
  /** Destroys the key of `id` (nothing if there is none); resolves once the deletion is durable. */
  destroy(id: string): Promise<void>;
  close(): Promise<void>;
}

/** The record a key is kept as: JSON, the wrapped key in base64. */
export const encodeStoredKey = (key: StoredDataKey): string => JSON.stringify({ wrapped: key.wrapped.toString('base64'), at: key.at });

export const decodeStoredKey = (text: string): StoredDataKey | undefined => {
  try {
    const value = JSON.parse(text) as { wrapped?: unknown; at?: unknown };
    if (typeof value.wrapped !== 'string' || typeof value.at !== 'number') return undefined;
    return { wrapped: Buffer.from(value.wrapped, 'base64'), at: value.at };
  } catch {
    return undefined;
  }
};
