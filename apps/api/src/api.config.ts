/** The API's settings: where its socket and tokens live, its TCP port, the cluster it serves. */
import { join } from 'node:path';
import { defaultSettings, shoalSettings } from '@shoal/config';
import { ensureCa } from '@shoal/runtime';
import type { SigningCa } from '@shoal/runtime';

export interface ApiConfig {
  /** $SHOAL_DATA_DIR: the socket, admin.token and tokens.json live here. */
  readonly dataDir: string;
  /** TCP port on 127.0.0.1 (0 = any free port). */
  readonly port: number;
  /** The cluster id to serve; by default the one the log's ClusterInitialized names. */
  readonly cluster?: string;
  /** The unix socket: `<dataDir>/shoal.sock`. */
  readonly socketPath: string;
  /** The address agents join at, shown by `docker swarm join-token`. */
  readonly joinAddr: string;
  /**
   * The cluster's first root CA ($SHOAL_CA_DIR), the dispatchers' too: until a rotation's
   * root takes over on the log (ApiRootCa), join tokens carry its digest, and the API calls
   * the dispatchers' Logs service with a manager certificate of it.
   */
  readonly ca?: SigningCa & { readonly pem: string };
}

export const DEFAULT_API_PORT = defaultSettings().SHOAL_API_PORT;
export const DEFAULT_JOIN_ADDR = defaultSettings().SHOAL_JOIN_ADDR;

export const apiConfig = (options: {
  readonly dataDir: string;
  readonly port: number;
  readonly cluster?: string;
  readonly joinAddr?: string;
  readonly ca?: SigningCa & { readonly pem: string };
}): ApiConfig => ({
  dataDir: options.dataDir,
  port: options.port,
  socketPath: join(options.dataDir, 'shoal.sock'),
  joinAddr: options.joinAddr ?? DEFAULT_JOIN_ADDR,
  ...(options.cluster ? { cluster: options.cluster } : {}),
  ...(options.ca ? { ca: options.ca } : {}),
});

/** SHOAL_DATA_DIR (.shoal), SHOAL_API_PORT (8080), SHOAL_CLUSTER_ID, SHOAL_JOIN_ADDR (127.0.0.1:2377), SHOAL_CA_DIR (none). */
export const apiConfigFromEnv = (env: NodeJS.ProcessEnv): ApiConfig => {
  const settings = shoalSettings(env);
  return apiConfig({
    dataDir: settings.SHOAL_DATA_DIR,
    port: settings.SHOAL_API_PORT,
    ...(settings.SHOAL_CLUSTER_ID ? { cluster: settings.SHOAL_CLUSTER_ID } : {}),
    joinAddr: settings.SHOAL_JOIN_ADDR,
    ...(settings.SHOAL_CA_DIR ? { ca: ensureCa(settings.SHOAL_CA_DIR) } : {}),
  });
};
