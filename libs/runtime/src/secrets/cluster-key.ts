/**
 * The cluster's key, which wraps every secret's data key: 32 random bytes, base64 in a file
 * only this machine's Shoal processes read (mode 0600). SHOAL_SECRETS_KEY_FILE names it;
 * unset, it is `<SHOAL_DATA_DIR>/secrets.key`, made by the first process that needs it
 * (processes that share the data directory, as the all-in-one's, share it). Every API and
 * dispatcher of a cluster must have the same key: deploy one file to each of them.
 *
 * With autolock on, the file holds the key locked: `locked:` and the key sealed under the
 * unlock key (unlock-key.ts), so that a stolen disk or backup gives no secret away.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { shoalSettings } from '@shoal/config';
import { KEY_BYTES } from './secret-box';

/** What the file holds: the key, or the key locked under an unlock key. */
export type ClusterKeyFile = { readonly key: Buffer } | { readonly locked: Buffer };

const LOCKED = 'locked:';

export const clusterKeyPath = (env: NodeJS.ProcessEnv): string => {
  const settings = shoalSettings(env);
  return settings.SHOAL_SECRETS_KEY_FILE ?? join(settings.SHOAL_DATA_DIR, 'secrets.key');
};

const decodeKeyFile = (text: string, path: string): ClusterKeyFile => {
  const trimmed = text.trim();
  if (trimmed.startsWith(LOCKED)) return { locked: Buffer.from(trimmed.slice(LOCKED.length), 'base64') };
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES || key.toString('base64') !== trimmed) {
    throw new Error(`${path} does not hold a cluster key (${KEY_BYTES} bytes in base64): make one with \`openssl rand -base64 ${KEY_BYTES}\``);
  }
  return { key };
};

const encodeKeyFile = (file: ClusterKeyFile): string => ('key' in file ? `${file.key.toString('base64')}\n` : `${LOCKED}${file.locked.toString('base64')}\n`);

const aside = (path: string): string => `${path}.${process.pid}-${randomBytes(4).toString('hex')}.new`;

/** The file's content; made there (a new key) when `create` and there is none. */
export const readClusterKeyFile = async (path: string, create: boolean): Promise<ClusterKeyFile> => {
  const read = (): Promise<string | undefined> =>
    readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
  const existing = await read();
  if (existing !== undefined) return decodeKeyFile(existing, path);
  if (!create) throw new Error(`there is no cluster key at ${path}: set SHOAL_SECRETS_KEY_FILE to the file every API and dispatcher shares`);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Written aside, then linked into place: a reader never sees half a key, and of two processes making one, the first wins.
  const made = aside(path);
  await writeFile(made, encodeKeyFile({ key: randomBytes(KEY_BYTES) }), { mode: 0o600 });
  try {
    await link(made, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(made);
  }
  return decodeKeyFile((await read()) ?? '', path);
};

/** Replaces the file's content at once (written aside, renamed over it). */
export const writeClusterKeyFile = async (path: string, file: ClusterKeyFile): Promise<void> => {
  const made = aside(path);
  await writeFile(made, encodeKeyFile(file), { mode: 0o600 });
  await rename(made, path);
};
