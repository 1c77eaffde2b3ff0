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

/**
 * Why something was refused, as a stable code beside the human reason: clients (the API's
 * HTTP status, an audit's grouping) read the code, people read the reason.
 */
export type VerdictCode =
  /** The record names something that is not in the state. */
  | 'not-found'
  /** An entity with that id is already there. */
  | 'already-exists'
  /** Another entity already has that name. */
  | 'name-conflict'
  /** The writer's version of the entity is not the current one. */
  | 'stale-version'
  /** The cluster was initialized already. */
  | 'already-initialized'
  /** The cluster has not been initialized. */
  | 'not-initialized'
  /** The entity is still in use (or not in a state that allows it). */
  | 'in-use'
  /** The spec breaks a rule (a bad field, a change that is not allowed). */
  | 'invalid'
  /** A node has no room for what is asked of it. */
  | 'over-capacity'
  /** The writer's term was superseded by a newer owner. */
  | 'superseded-term'
  /** The record was already applied (same writer and sequence). */
  | 'duplicate'
  /** Not a record this build can read. */
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
