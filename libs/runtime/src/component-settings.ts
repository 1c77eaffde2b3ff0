/**
 * What a component's own process takes from its environment (declared in @shoal/config):
 *   SHOAL_CLUSTER_ID         the cluster to write for (default: the one the log's ClusterInitialized names)
 *   SHOAL_BIND_HOST          where it listens (default 127.0.0.1)
 *   SHOAL_HEALTH_PORT        its /healthz, /statez, /readyz (default 0: any free port)
 *   SHOAL_DATA_DIR, SHOAL_SNAPSHOT_EVERY_MS  where and how often its view is snapshotted
 * The log's own settings (KAFKA_BROKERS, SHOAL_TOPIC_PREFIX, and SHOAL_KAFKA_SSL_* and
 * SHOAL_KAFKA_SASL_* for TLS and authentication) are EventLogModule's. Every setting: docs/configuration.md.
 */
import { shoalSettings } from '@shoal/config';
import { viewSnapshotsFromEnv } from './view-snapshots';
import type { ViewSnapshots } from './view-snapshots';

export interface ComponentSettings {
  readonly cluster?: string;
  readonly host: string;
  readonly healthPort: number;
  readonly snapshots?: ViewSnapshots;
}

export const componentSettingsFromEnv = (env: NodeJS.ProcessEnv, component: string): ComponentSettings => {
  const settings = shoalSettings(env);
  const cluster = settings.SHOAL_CLUSTER_ID;
  const snapshots = viewSnapshotsFromEnv(env, component);
  return {
    host: settings.SHOAL_BIND_HOST,
    healthPort: settings.SHOAL_HEALTH_PORT,
    ...(cluster ? { cluster } : {}),
    ...(snapshots ? { snapshots } : {}),
  };
};
