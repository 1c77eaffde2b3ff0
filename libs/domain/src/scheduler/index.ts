/** What the scheduler offers the rest of Shoal: its core and its filters. */
export { SchedulerCore, nodeOrder } from './scheduler-core';
export type { SchedulerOptions } from './scheduler-core';
export { TASK_COST, TICK_BUDGET } from './tick-budget';
export { hostPortKeys, taskHostPorts } from './scheduling-task';
export { Pipeline, noSuitableNode } from './pipeline';
export { defaultFilters } from './filters';
export type { Filter } from './filters';
export { MAX_FAILURES, MONITOR_FAILURES_MS } from './node-info';
