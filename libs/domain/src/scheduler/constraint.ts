/**
 * Placement constraints ("node.labels.zone==east", "node.role!=manager",
 * "node.ip==10.0.0.0/8"), as Docker users write them: a key, `==` or `!=`, a value.
 * Keys are case-insensitive except the label name; values compare case-insensitively.
 * Used by the scheduler's constraint filter and by the global orchestrator, which only
 * creates tasks on the nodes a service's constraints allow.
 */
import type { Node } from '../state';
import { ipEquals, parseCidr, parseHostAddress, parseIp, subnetContains } from './ip-address';
import type { Subnet } from './ip-address';

export type ConstraintOperator = '==' | '!=';

export interface Constraint {
  readonly key: string;
  readonly operator: ConstraintOperator;
  readonly value: string;
}

export const NODE_LABEL_PREFIX = 'node.labels.';
export const ENGINE_LABEL_PREFIX = 'engine.labels.';

const KEY = /^[a-z_][a-z0-9\-_.]+$/i;
// A value may not hold operators of its own (no '<', '>', '~', '=', '!').
const VALUE = /^[a-z0-9:\-_\s.*()?+[\]\\^$|/]+$/i;

/** Parses one expression, or throws an Error that says what is wrong with it. */
export const parseConstraint = (expression: string): Constraint => {
  for (const operator of ['==', '!='] as const) {
    const at = expression.indexOf(operator);
    if (at < 0) continue;
    const key = expression.slice(0, at).trim();
    const value = expression.slice(at + operator.length).trim();
    if (!KEY.test(key)) throw new Error(`constraint "${expression}": key '${key}' is invalid`);
    if (!VALUE.test(value)) throw new Error(`constraint "${expression}": value '${value}' is invalid`);
    return { key, operator, value };
  }
  throw new Error(`constraint "${expression}": expected one operator from ==, !=`);
};

/** Parses every expression; throws on the first invalid one. */
export const parseConstraints = (expressions: readonly string[]): Constraint[] => expressions.map(parseConstraint);

const startsWithFold = (text: string, prefix: string): boolean =>
  text.length > prefix.length && text.slice(0, prefix.length).toLowerCase() === prefix;

/** True when `==` and one of `candidates` equals the value, or `!=` and none does. */
const compare = (constraint: Constraint, candidate: string): boolean => {
  const equal = constraint.value.toLowerCase() === candidate.toLowerCase();
  return constraint.operator === '==' ? equal : !equal;
};

const matchesIp = (constraint: Constraint, node: Node): boolean => {
  const nodeIp = parseHostAddress(node.status.addr);
  const single = parseIp(constraint.value);
  const subnet = single ? undefined : parseCidr(constraint.value);
  // A malformed address or network never matches, whatever the operator.
  if (!single && !subnet) return false;
  const inside = nodeIp !== undefined && (single ? ipEquals(single, nodeIp) : subnetContains(subnet as Subnet, nodeIp));
  return constraint.operator === '==' ? inside : !inside;
};


/** Whether one constraint holds on `node`. An unknown key never holds. */
export const matchesConstraint = (node: Node, constraint: Constraint): boolean => {
  const key = constraint.key.toLowerCase();
  switch (key) {
    case 'node.id':
      return compare(constraint, node.id);
    case 'node.hostname':
      return compare(constraint, node.description.hostname ?? '');
    case 'node.ip':
      return matchesIp(constraint, node);
    case 'node.role':
      return compare(constraint, node.spec.role);
    case 'node.platform.os':
      return compare(constraint, node.description.platform?.os ?? '');
    case 'node.platform.arch':
      return compare(constraint, node.description.platform?.architecture ?? '');
    default:
      break;
  }
  if (startsWithFold(constraint.key, NODE_LABEL_PREFIX)) {
    return compare(constraint, node.spec.labels[constraint.key.slice(NODE_LABEL_PREFIX.length)] ?? '');
  }
  if (startsWithFold(constraint.key, ENGINE_LABEL_PREFIX)) {
    return compare(constraint, node.description.engine?.labels?.[constraint.key.slice(ENGINE_LABEL_PREFIX.length)] ?? '');
  }
  return false;
};

/** Whether every constraint holds on `node` (SwarmKit's NodeMatches). */
export const matchesConstraints = (node: Node, constraints: readonly Constraint[]): boolean =>
  constraints.every((constraint) => matchesConstraint(node, constraint));
