export * from './envelope';
export * from './task-state';
export * from './resources';
export * from './network';
export * from './config';
export * from './secret';
export * from './container';
export * from './node';
export * from './cluster';
export * from './admission-limits';
export * from './service';
export * from './task';
export * from './events';
export * from './upcasters';
export * from './shape';
export * from './event-shapes';
export * from './codec';
export * from './log-level';
export * from './audit-checkpoint';
// Named as well as starred: a named re-export is read through an accessor of its own, which
// the engine inlines; the star's shared accessor is slow on the paths every record takes.
export { TaskState, isAgentReportable, isDesiredState, isTaskState, isTerminal, taskStateName } from './task-state';
export { EVENT_TYPES, isEventType } from './events';
export { decode, encode } from './codec';
export { writerKey } from './envelope';
