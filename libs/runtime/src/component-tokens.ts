/** Injection tokens of a component process. */
export const COMPONENT_CORE = Symbol('COMPONENT_CORE');
export const COMPONENT_RUNNER = Symbol('COMPONENT_RUNNER');
/** Every runner of a component process: one per partition (cluster) it serves, in partition order. */
export const COMPONENT_RUNNERS = Symbol('COMPONENT_RUNNERS');
