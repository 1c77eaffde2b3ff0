/**
 * What a component's own process takes from its environment, read here and nowhere else:
 *   SHOAL_CLUSTER_ID         the cluster to write for (default: the one the log's ClusterInitialized names)
 *   SHOAL_BIND_HOST          where it listens (default 127.0.0.1)
 *   SHOAL_HEALTH_PORT        its /healthz, /statez, /readyz (default 0: any free port)
 *   SHOAL_DATA_DIR, SHOAL_SNAPSHOT_EVERY_MS  where and how often its view is snapshotted
 * The log's own settings (KAFKA_BROKERS, SHOAL_TOPIC_PREFIX, and SHOAL_KAFKA_SSL_* and
 * SHOAL_KAFKA_SASL_* for TLS and authentication) are EventLogModule's: see docs/deploy.md.
 */
import { viewSnapshotsFromEnv } from './view-snapshots';
import type { ViewSnapshots } from './view-snapshots';

export interface ComponentSettings {
  readonly cluster?: string;
  readonly host: string;
  readonly healthPort: number;
  readonly snapshots?: ViewSnapshots;
}

/** The port `name` says, `fallback` when it is unset or blank; anything but 0–65535 is refused. */
export const portFromEnv = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const raw = env[name]?.trim() || String(fallback);
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new Error(`${name} must be a port number (0–65535), not "${raw}"`);
  return port;
};

export const componentSettingsFromEnv = (env: NodeJS.ProcessEnv, component: string): ComponentSettings => {
  const cluster = env.SHOAL_CLUSTER_ID?.trim();
  const snapshots = viewSnapshotsFromEnv(env, component);
  return {
    host: env.SHOAL_BIND_HOST?.trim() || '127.0.0.1',
    healthPort: portFromEnv(env, 'SHOAL_HEALTH_PORT', 0),
    ...(cluster ? { cluster } : {}),
    ...(snapshots ? { snapshots } : {}),
  };
};
