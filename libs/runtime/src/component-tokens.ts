/** Injection tokens of a component process. */
export const COMPONENT_CORE = Symbol('COMPONENT_CORE');
export const COMPONENT_RUNNER = Symbol('COMPONENT_RUNNER');
