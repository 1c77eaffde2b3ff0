/**
 * Where the log differs from what was signed: the records as read (offset, short digest)
 * against the records the checkpoints signed, in order. The first place they part names
 * the offset and the kind of change.
 */

export interface DigestAt {
  readonly offset: number;
  readonly digest: string;
}

export type DifferenceKind = 'changed' | 'removed' | 'inserted' | 'reordered' | 'truncated';

export interface Difference {
  readonly kind: DifferenceKind;
  /** The first offset of the log as read where it differs from the signed history. */
  readonly offset: number;
  readonly detail: string;
}

const same = (a: DigestAt | undefined, b: DigestAt | undefined): boolean => a !== undefined && b !== undefined && a.digest === b.digest;

/**
 * The first difference between the log as read (`actual`, from offset 0) and the signed
 * records (`signed`, from offset 0, as far as the checkpoints reach); undefined when the
 * log holds every signed record, unchanged and in place. Records past the last signed one
 * are not compared.
 */
export const firstDifference = (actual: readonly DigestAt[], signed: readonly DigestAt[]): Difference | undefined => {
  for (let k = 0; k < signed.length; k++) {
    const want = signed[k]!;
    const got = actual[k];
    if (got === undefined) {
      const end = actual.length > 0 ? actual[actual.length - 1]!.offset + 1 : 0;
      return { kind: 'truncated', offset: end, detail: `the log ends at offset ${end}; the signed history goes on to offset ${signed[signed.length - 1]!.offset}` };
    }
    if (got.offset === want.offset && got.digest === want.digest) continue;
    const next = actual[k + 1];
    const wantNext = signed[k + 1];
    if (same(got, wantNext) && same(next, want)) {
      return { kind: 'reordered', offset: got.offset, detail: `the records signed at offsets ${want.offset} and ${wantNext!.offset} are in each other's place` };
    }
    if (same(got, wantNext) && (signed[k + 2] === undefined || same(next, signed[k + 2]))) {
      return { kind: 'removed', offset: got.offset, detail: `the record signed at offset ${want.offset} is missing: offset ${got.offset} holds the one signed at ${wantNext!.offset}` };
    }
    if (same(next, want)) {
      return { kind: 'inserted', offset: got.offset, detail: `offset ${got.offset} holds a record that was never signed; the one signed there follows it` };
    }
    if (got.digest === want.digest) {
      return { kind: 'changed', offset: got.offset, detail: `the record signed at offset ${want.offset} is at offset ${got.offset}` };
    }
    return { kind: 'changed', offset: got.offset, detail: `the record at offset ${got.offset} is not the one signed there` };
  }
  return undefined;
};
