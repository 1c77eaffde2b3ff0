export * from './tracing';
export * from './trace-headers';
export * from './trace-fields';
export * from './tick-tracer';
export * from './async-context';
