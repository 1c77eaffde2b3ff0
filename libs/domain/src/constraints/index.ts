/** Placement constraints: the one grammar and the one evaluator, for the API, the scheduler and the orchestrators. */
export { readConstraint, parseConstraint, parseConstraints, constraintsOf } from './constraint';
export type { Constraint, ConstraintOperator, ConstraintReading } from './constraint';
export { NODE_FIELDS, NODE_LABEL_PREFIX, ENGINE_LABEL_PREFIX, CONSTRAINT_KEYS, isConstraintKey } from './constraint-key';
export { matchesConstraint, matchesConstraints, meetsConstraints } from './matching';
