/**
 * A service's placement constraints, as the global orchestrator reads them: parsed and
 * matched by the scheduler's constraint matcher (one reading of "node.labels.zone==east"
 * for the whole control plane). Constraints that do not parse match no node — the API
 * refuses them up front, so only an old record could carry one.
 */
import { matchesConstraints, parseConstraints } from '../scheduler/constraint';
import type { Constraint } from '../scheduler/constraint';
import type { Node } from '../state';

/** The parsed constraints; undefined when one of them does not parse. */
export const constraintsOf = (expressions: readonly string[] | undefined): readonly Constraint[] | undefined => {
  if (!expressions || expressions.length === 0) return [];
  try {
    return parseConstraints(expressions);
  } catch {
    return undefined;
  }
};

/** Whether a service's tasks belong on the node at all. */
export const meetsConstraints = (constraints: readonly Constraint[] | undefined, node: Node): boolean =>
  constraints !== undefined && matchesConstraints(node, constraints);
