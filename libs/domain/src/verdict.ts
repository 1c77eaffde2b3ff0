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
  /** An entity with that id is already there (or the one of its kind a cluster may have). */
  | 'already-exists'
  /** Another entity already has that name. */
  | 'name-conflict'
  /** The writer's version of the entity is not the current one. */
  | 'stale-version'
  /** The cluster was initialized already. */
  | 'already-initialized'
  /** The cluster has not been initialized. */
  | 'not-initialized'
  /** The entity is still in use: by a service, a task, or (a published port) another service. */
  | 'in-use'
  /** The entity is not in a state that allows it (a task no longer PENDING, a node not ready, not down). */
  | 'wrong-state'
  /** The spec breaks a rule (a bad field, a change that is not allowed). */
  | 'invalid'
  /** A node has no room for what is asked of it. */
  | 'over-capacity'
  /** More than the cluster's admission limits allow (replicas, tasks, services, spec size). */
  | 'over-limit'
  /** The writer may not propose this record (its component, or what it may create). */
  | 'not-permitted'
  /** The writer's term was superseded by a newer owner, or never taken. */
  | 'superseded-term'
  /** The record was already applied (same writer and sequence). */
  | 'duplicate'
  /** Not a record this build can read. */
  | 'poison';

const EVERY_CODE: Record<VerdictCode, true> = {
  'not-found': true,
  'already-exists': true,
  'name-conflict': true,
  'stale-version': true,
  'already-initialized': true,
  'not-initialized': true,
  'in-use': true,
  'wrong-state': true,
  invalid: true,
  'over-capacity': true,
  'over-limit': true,
  'not-permitted': true,
  'superseded-term': true,
  duplicate: true,
  poison: true,
};
/** Every code, for a schema's enum. */
export const VERDICT_CODES = Object.keys(EVERY_CODE) as readonly VerdictCode[];

/** One refusal: of the whole record, or of one item of a batch (then it names the item). */
export interface Refused {
  readonly code: VerdictCode;
  readonly reason: string;
  /** The id of the refused item of a batch. */
  readonly item?: string;
}

export interface Verdict {
  readonly status: VerdictStatus;
  readonly type?: EventType | string;
  /** Why something was refused: one reason per refused item (or one for the record). */
  readonly reasons: readonly string[];
  /** The code of each reason, in the same order. */
  readonly codes: readonly VerdictCode[];
  /** In a batch, the id of each refused item (a record refused as a whole names none). */
  readonly refused?: readonly string[];
}

export const refuse = (code: VerdictCode, reason: string, item?: string): Refused =>
  item === undefined ? { code, reason } : { code, reason, item };

export const applied = (type: string): Verdict => ({ status: 'applied', type, reasons: [], codes: [] });
export const rejected = (type: string | undefined, code: VerdictCode, reason: string): Verdict => ({
  status: 'rejected',
  ...(type === undefined ? {} : { type }),
  reasons: [reason],
  codes: [code],
});
/** The verdict on a record no build can read; `type` when its envelope names one. */
export const poisoned = (type: string | undefined, reason: string): Verdict => ({
  status: 'poison',
  reasons: [reason],
  codes: ['poison'],
  ...(type === undefined ? {} : { type }),
});
/** The verdict of a batch from its refused items and how many items it had. */
export const batchVerdict = (type: string, total: number, refusals: readonly Refused[]): Verdict =>
  refusals.length === 0
    ? applied(type)
    : {
        status: refusals.length >= total ? 'rejected' : 'partial',
        type,
        reasons: refusals.map((refusal) => refusal.reason),
        codes: refusals.map((refusal) => refusal.code),
        refused: refusals.flatMap((refusal) => (refusal.item === undefined ? [] : [refusal.item])),
      };

/** Whether the item `id` of a record applied: the whole record did, or a partial batch did not refuse it. */
export const itemApplied = (verdict: Verdict, id: string): boolean =>
  verdict.status === 'applied' || (verdict.status === 'partial' && !(verdict.refused ?? []).includes(id));
