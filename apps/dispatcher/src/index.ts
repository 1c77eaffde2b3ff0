/** The dispatcher for an in-process host (the all-in-one `npm start`). */
export { DispatcherServer } from './dispatcher-server';
export type { DispatcherServerOptions } from './dispatcher-server';
export { DEFAULT_DISPATCHER_PORT, dispatcherOptionsFromEnv } from './dispatcher.config';
