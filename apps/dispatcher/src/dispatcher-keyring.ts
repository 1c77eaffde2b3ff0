/**
 * The dispatcher process's cluster keyring (libs/runtime's ClusterKeyring): it opens the
 * secrets it sends to nodes. With autolock on, the key file is locked and so is the
 * dispatcher, until it is given the unlock key: SHOAL_UNLOCK_KEY_FILE names a file holding
 * it (one line, `SWMKEY-1-…`; put it on tmpfs, and remove it once the dispatcher runs).
 * Without it, a locked dispatcher sends no secret and says so.
 */
import { readFile } from 'node:fs/promises';
import { shoalSettings } from '@shoal/config';
import type { EventLog } from '@shoal/eventlog';
import { ClusterKeyring } from '@shoal/runtime';

export const dispatcherKeyring = async (log: EventLog, dataDir: string, env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<ClusterKeyring> => {
  const keyring = await ClusterKeyring.open(log, dataDir, env);
  if (!keyring.isLocked) return keyring;
  const file = shoalSettings(env).SHOAL_UNLOCK_KEY_FILE;
  if (!file) {
    say(`the cluster key in ${keyring.path} is locked (autolock): this dispatcher sends no secret to nodes until it starts with SHOAL_UNLOCK_KEY_FILE`);
    return keyring;
  }
  await keyring.unlock(await readFile(file, 'utf8')).catch((error: unknown) => {
    throw new Error(`SHOAL_UNLOCK_KEY_FILE (${file}) does not unlock the cluster key in ${keyring.path}: ${(error as Error).message}`);
  });
  say(`the cluster key in ${keyring.path} is unlocked with SHOAL_UNLOCK_KEY_FILE`);
  return keyring;
};
