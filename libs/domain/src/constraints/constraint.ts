/**
 * Placement constraints ("node.labels.zone==east", "node.role!=manager",
 * "node.ip==10.0.0.0/8"), in SwarmKit's grammar: a key, `==` or `!=`, a value, spaces
 * around each ignored. The key is a letter or `_` then letters, digits, `-`, `_`, `.`; the
 * value may not hold operators of its own (no `<`, `>`, `~`, `=`, `!`). The one reading of
 * that grammar: the API validates with it, the scheduler and the orchestrators evaluate
 * what it reads (`matching.ts`).
 */

export type ConstraintOperator = '==' | '!=';

export interface Constraint {
  readonly key: string;
  readonly operator: ConstraintOperator;
  readonly value: string;
}

/** An expression read: its constraint, or why it is none (with the key and value it was split into, if it has an operator). */
export type ConstraintReading =
  | { readonly ok: true; readonly constraint: Constraint }
  | { readonly ok: false; readonly reason: string; readonly key?: string; readonly value?: string };

const OPERATOR = /==|!=/;
const KEY = /^[a-z_][a-z0-9\-_.]+$/i;
const VALUE = /^[a-z0-9:\-_\s.*()?+[\]\\^$|/]+$/i;

/** Splits `expression` at its first operator and checks the key, then the value. */
export const readConstraint = (expression: string): ConstraintReading => {
  const operator = OPERATOR.exec(expression);
  if (!operator) return { ok: false, reason: `constraint "${expression}": expected one operator from ==, !=` };
  const key = expression.slice(0, operator.index).trim();
  const value = expression.slice(operator.index + 2).trim();
  if (!KEY.test(key)) return { ok: false, reason: `constraint "${expression}": key '${key}' is invalid`, key, value };
  if (!VALUE.test(value)) return { ok: false, reason: `constraint "${expression}": value '${value}' is invalid`, key, value };
  return { ok: true, constraint: { key, operator: operator[0] as ConstraintOperator, value } };
};

/** Parses one expression, or throws an Error that says what is wrong with it. */
export const parseConstraint = (expression: string): Constraint => {
  const reading = readConstraint(expression);
  if (!reading.ok) throw new Error(reading.reason);
  return reading.constraint;
};

/** Parses every expression; throws on the first invalid one. */
export const parseConstraints = (expressions: readonly string[]): Constraint[] => expressions.map(parseConstraint);

/** A service's constraints parsed; undefined when one of them does not parse (then no node meets them). */
export const constraintsOf = (expressions: readonly string[] | undefined): readonly Constraint[] | undefined => {
  const constraints: Constraint[] = [];
  for (const expression of expressions ?? []) {
    const reading = readConstraint(expression);
    if (!reading.ok) return undefined;
    constraints.push(reading.constraint);
  }
  return constraints;
};
