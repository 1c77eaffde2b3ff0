/**
 * What the API's providers share. The API keeps one projection of the log (a LiveView of
 * libs/runtime) that every read answers from, and one EventWriter (component 'api') that
 * every intent goes through, waiting for evolve's verdict before it answers.
 */

/** The API's LiveView of the cluster's log. */
export const API_VIEW = Symbol('API_VIEW');

/** The API's EventWriter. */
export const API_WRITER = Symbol('API_WRITER');

/** The API's settings: data dir (socket, admin token), TCP port, cluster id. */
export const API_CONFIG = Symbol('API_CONFIG');

/** Optional: the ProcessMetrics of the process hosting the API, shared with the parts beside it (the all-in-one); else the API makes its own. */
export const API_METRICS = Symbol('API_METRICS');

/** Optional: the ClusterKeyring of the process hosting the API, shared with its dispatcher (the all-in-one); else the API opens its own. */
export const API_KEYRING = Symbol('API_KEYRING');
