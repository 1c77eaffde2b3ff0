/**
 * Placement constraints as the API takes them: read by the domain's grammar, the one the
 * scheduler and the orchestrators evaluate with, on a key the domain knows. A constraint
 * the API accepts is one they can read.
 */
import { CONSTRAINT_KEYS, isConstraintKey, readConstraint } from '@shoal/domain';

/** What a key is made of, for the words of the refusal: a key of other characters is not of the form at all. */
const KEY_CHARACTERS = /^[\w.-]+$/;
/** The API takes a value on one line. */
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/** Why a constraint is not valid, or undefined when it is. */
export const constraintProblem = (constraint: string): string | undefined => {
  const reading = readConstraint(constraint);
  const { key, value } = reading.ok ? reading.constraint : reading;
  if (key === undefined || value === undefined || !KEY_CHARACTERS.test(key) || value === '' || LINE_BREAK.test(value)) {
    return `"${constraint}" is not of the form <key>==<value> or <key>!=<value>`;
  }
  if (!isConstraintKey(key)) return `"${key}" is not a constraint key (${CONSTRAINT_KEYS.join(', ')})`;
  return reading.ok ? undefined : reading.reason;
};
