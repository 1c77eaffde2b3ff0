/**
 * Placement constraints ("node.labels.zone==east", "node.role!=manager") and whether a
 * node meets them, as Docker reads them: keys and values compare case-insensitively, a
 * missing label is the empty string, an unknown key never matches.
 */
import type { Node } from '../state';

export interface Constraint {
  readonly key: string;
  readonly op: '==' | '!=';
  readonly value: string;
}

const KEY = /^[a-z_][a-z0-9\-_.]+$/i;
const VALUE = /^[a-z0-9:\-_\s.*()?+[\]\\^$|/]+$/i;

/** Parses constraint expressions; throws with the offending expression when one is malformed. */
export const parseConstraints = (expressions: readonly string[]): Constraint[] =>
  expressions.map((expression) => {
    const op = expression.includes('==') ? '==' : expression.includes('!=') ? '!=' : undefined;
    if (!op) throw new Error(`constraint "${expression}": expected one operator from ==, !=`);
    const at = expression.indexOf(op);
    const key = expression.slice(0, at).trim();
    const value = expression.slice(at + 2).trim();
    if (!KEY.test(key)) throw new Error(`constraint "${expression}": key '${key}' is invalid`);
    if (!VALUE.test(value)) throw new Error(`constraint "${expression}": value '${value}' is invalid`);
    return { key, op, value };
  });

const NODE_LABEL = 'node.labels.';
const ENGINE_LABEL = 'engine.labels.';

const ipv4 = (text: string): number | undefined => {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
};

/** node.ip: an address or a CIDR block (IPv4). */
const ipMatches = (value: string, addr: string | undefined): boolean | undefined => {
  const host = addr === undefined ? undefined : ipv4(addr.replace(/:\d+$/, ''));
  const [base, bits] = value.split('/');
  const network = ipv4(base ?? '');
  if (network === undefined) return undefined;
  if (bits === undefined) return host === network;
  const size = Number(bits);
  if (!/^\d+$/.test(bits) || size > 32) return undefined;
  if (host === undefined) return false;
  const block = 2 ** (32 - size);
  return Math.floor(host / block) === Math.floor(network / block);
};

/** The value a constraint's key reads on this node; undefined for a key Shoal does not know. */
const valueOf = (key: string, node: Node): string | undefined => {
  const lower = key.toLowerCase();
  switch (lower) {
    case 'node.id':
      return node.id;
    case 'node.hostname':
      return node.description.hostname;
    case 'node.role':
      return node.spec.role;
    case 'node.platform.os':
      return node.description.platform.os;
    case 'node.platform.arch':
      return node.description.platform.architecture;
    default:
      if (lower.startsWith(NODE_LABEL) && key.length > NODE_LABEL.length) return node.spec.labels[key.slice(NODE_LABEL.length)] ?? '';
      if (lower.startsWith(ENGINE_LABEL) && key.length > ENGINE_LABEL.length) {
        return node.description.engine.labels?.[key.slice(ENGINE_LABEL.length)] ?? '';
      }
      return undefined;
  }
};

export const nodeMatches = (constraints: readonly Constraint[], node: Node): boolean =>
  constraints.every((c) => {
    if (c.key.toLowerCase() === 'node.ip') {
      const within = ipMatches(c.value, node.status.addr);
      return within !== undefined && within === (c.op === '==');
    }
    const actual = valueOf(c.key, node);
    if (actual === undefined) return false;
    const equal = actual.toLowerCase() === c.value.toLowerCase();
    return c.op === '==' ? equal : !equal;
  });

/** The constraints of a spec, or none when they do not parse (the API refuses those up front). */
export const constraintsOf = (expressions: readonly string[] | undefined): readonly Constraint[] | undefined => {
  if (!expressions || expressions.length === 0) return [];
  try {
    return parseConstraints(expressions);
  } catch {
    return undefined;
  }
};
