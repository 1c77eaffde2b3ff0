/** The vault a process opens beside its log: the cluster's key (cluster-key.ts) and the data-key store beside the log. */
import { openDataKeyStore } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { clusterKeyPath, loadClusterKey } from './cluster-key';
import { SecretVault } from './secret-vault';

/** `dataDir`: where the embedded log's keys are kept, and the cluster key when SHOAL_SECRETS_KEY_FILE is unset. */
export const openSecretVault = async (log: EventLog, dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<SecretVault> => {
  const path = clusterKeyPath({ ...env, SHOAL_DATA_DIR: dataDir });
  const vault = new SecretVault(await loadClusterKey(path, true), await openDataKeyStore(log, dataDir));
  try {
    await vault.checkClusterKey(path);
  } catch (error) {
    await vault.close();
    throw error;
  }
  return vault;
};
