/**
 * Whether a node meets placement constraints (SwarmKit's NodeMatches): a node field or
 * label compared without regard to case (a missing one reads as empty), `node.ip` against
 * one address or a CIDR block. An unknown key, or a malformed address, never holds.
 */
import { ipEquals, parseHostAddress, parseIp, parseIpPrefix, prefixContains } from '../net';
import type { Node } from '../state';
import type { Constraint } from './constraint';
import { ENGINE_LABEL_PREFIX, NODE_LABEL_PREFIX, labelNameOf, nodeFieldOf } from './constraint-key';
import type { NodeField } from './constraint-key';

/** True when `==` and the candidate equals the value, or `!=` and it does not. */
const compare = (constraint: Constraint, candidate: string): boolean => {
  const equal = constraint.value.toLowerCase() === candidate.toLowerCase();
  return constraint.operator === '==' ? equal : !equal;
};

const matchesIp = (constraint: Constraint, node: Node): boolean => {
  const nodeIp = parseHostAddress(node.status.addr);
  const single = parseIp(constraint.value);
  const block = single ? undefined : parseIpPrefix(constraint.value);
  // A malformed address or network never matches, whatever the operator.
  if (!single && !block) return false;
  const inside = nodeIp !== undefined && (single ? ipEquals(single, nodeIp) : prefixContains(block!, nodeIp));
  return constraint.operator === '==' ? inside : !inside;
};

const matchesField = (node: Node, constraint: Constraint, field: NodeField): boolean => {
  switch (field) {
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
    default: {
      const _exhaustive: never = field;
      return _exhaustive;
    }
  }
};

/** Whether one constraint holds on `node`. An unknown key never holds. */
export const matchesConstraint = (node: Node, constraint: Constraint): boolean => {
  const field = nodeFieldOf(constraint.key);
  if (field !== undefined) return matchesField(node, constraint, field);
  const label = labelNameOf(constraint.key, NODE_LABEL_PREFIX);
  if (label !== undefined) return compare(constraint, node.spec.labels[label] ?? '');
  const engineLabel = labelNameOf(constraint.key, ENGINE_LABEL_PREFIX);
  if (engineLabel !== undefined) return compare(constraint, node.description.engine?.labels?.[engineLabel] ?? '');
  return false;
};

/** Whether every constraint holds on `node` (SwarmKit's NodeMatches). */
export const matchesConstraints = (node: Node, constraints: readonly Constraint[]): boolean =>
  constraints.every((constraint) => matchesConstraint(node, constraint));

/** Whether a service's tasks belong on the node at all: constraints that did not parse (`constraintsOf` gave undefined) are met by no node. */
export const meetsConstraints = (constraints: readonly Constraint[] | undefined, node: Node): boolean =>
  constraints !== undefined && matchesConstraints(node, constraints);
