/** What the scheduler offers the rest of Shoal: its core, and the constraint matcher it shares. */
export { SchedulerCore, nodeOrder } from './scheduler-core';
export { parseConstraint, parseConstraints, matchesConstraint, matchesConstraints, NODE_LABEL_PREFIX, ENGINE_LABEL_PREFIX } from './constraint';
export type { Constraint, ConstraintOperator } from './constraint';
export { hostPortKeys, taskHostPorts } from './scheduling-task';
export { Pipeline, noSuitableNode } from './pipeline';
export { defaultFilters } from './filters';
export type { Filter } from './filters';
export { MAX_FAILURES, MONITOR_FAILURES_MS } from './node-info';
