/** The all-in-one process's settings, from the environment. */
export const SHOAL_CONFIG = Symbol('SHOAL_CONFIG');

export interface ShoalConfig {
  /** Where the embedded log, snapshots, the socket and the admin token live. */
  readonly dataDir: string;
  /** The API's TCP port on 127.0.0.1. */
  readonly apiPort: number;
  /** Kafka brokers; empty for the embedded log. */
  readonly brokers: readonly string[];
  /** How often the view is snapshotted (when it has moved), in ms. */
  readonly snapshotEveryMs: number;
  /** Cluster id to create on first start; a random one otherwise. */
  readonly clusterId?: string;
}

export const configFromEnv = (env: NodeJS.ProcessEnv): ShoalConfig => {
  const port = Number(env.SHOAL_API_PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`SHOAL_API_PORT must be a port number (0–65535), not "${env.SHOAL_API_PORT}"`);
  }
  return {
    dataDir: env.SHOAL_DATA_DIR ?? '.shoal',
    apiPort: port,
    snapshotEveryMs: Number(env.SHOAL_SNAPSHOT_EVERY_MS ?? 30_000),
    brokers: (env.KAFKA_BROKERS ?? '').split(',').map((b) => b.trim()).filter(Boolean),
    ...(env.SHOAL_CLUSTER_ID ? { clusterId: env.SHOAL_CLUSTER_ID } : {}),
  };
};
