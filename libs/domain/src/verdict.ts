/** What evolve ruled on one record. */
import type { EventType } from '@shoal/contracts';

export type VerdictStatus =
  /** Every part applied. */
  | 'applied'
  /** A batch of which some items applied and some were refused (see reasons). */
  | 'partial'
  /** Nothing applied: a precondition, a rule, the writer's term or a duplicate. */
  | 'rejected'
  /** Not a record this build can read: unparseable, unknown type or version, bad shape. */
  | 'poison';

export interface Verdict {
  readonly status: VerdictStatus;
  readonly type?: EventType | string;
  /** Why something was refused: one reason per refused item (or one for the record). */
  readonly reasons: readonly string[];
}

export const applied = (type: string): Verdict => ({ status: 'applied', type, reasons: [] });
export const rejected = (type: string | undefined, reason: string): Verdict => ({
  status: 'rejected',
  ...(type === undefined ? {} : { type }),
  reasons: [reason],
});
/** The verdict of a batch from its refused items' reasons and how many items it had. */
export const batchVerdict = (type: string, total: number, reasons: readonly string[]): Verdict =>
  reasons.length === 0
    ? applied(type)
    : { status: reasons.length >= total ? 'rejected' : 'partial', type, reasons };
