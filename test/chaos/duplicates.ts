/**
 * A record written twice: the same record at two offsets, which is what a producer's retry
 * without idempotence leaves when the first attempt had reached the log. Every record a
 * Shoal process writes has an id of its own (the envelope's `id`), so two records with one
 * id are one write twice; a record with none is known by its bytes. Pure.
 */
export interface Duplicate {
  /** The offsets holding the same value, in order. */
  readonly offsets: readonly number[];
  /** The record's type, when it is JSON with one. */
  readonly type?: string;
}

/** The record's id (else its bytes) and its type, if it has them. */
const identify = (value: string): { readonly key: string; readonly type?: string } => {
  try {
    const parsed = JSON.parse(value) as { id?: unknown; type?: unknown };
    const key = typeof parsed.id === 'string' && parsed.id !== '' ? `id ${parsed.id}` : `bytes ${value}`;
    return typeof parsed.type === 'string' ? { key, type: parsed.type } : { key };
  } catch {
    return { key: `bytes ${value}` };
  }
};

/** Every value found at more than one offset (`except`: offsets written on purpose, such as poison). */
export const duplicatedRecords = (records: Iterable<{ readonly offset: number; readonly value: string }>, except: ReadonlySet<number> = new Set()): Duplicate[] => {
  const byKey = new Map<string, { offsets: number[]; type?: string }>();
  for (const { offset, value } of records) {
    if (except.has(offset)) continue;
    const { key, type } = identify(value);
    const seen = byKey.get(key);
    if (seen) seen.offsets.push(offset);
    else byKey.set(key, type === undefined ? { offsets: [offset] } : { offsets: [offset], type });
  }
  const found: Duplicate[] = [];
  for (const { offsets, type } of byKey.values()) {
    if (offsets.length < 2) continue;
    found.push(type === undefined ? { offsets } : { offsets, type });
  }
  return found.sort((a, b) => a.offsets[0]! - b.offsets[0]!);
};
