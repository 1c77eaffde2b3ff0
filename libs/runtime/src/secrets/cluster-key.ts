/**
 * The cluster's key, which wraps every secret's data key: 32 random bytes, base64 in a file
 * only this machine's Shoal processes read (mode 0600). SHOAL_SECRETS_KEY_FILE names it;
 * unset, it is `<SHOAL_DATA_DIR>/secrets.key`, made by the first process that needs it
 * (processes that share the data directory, as the all-in-one's, share it). Every API and
 * dispatcher of a cluster must have the same key: deploy one file to each of them.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KEY_BYTES } from './secret-box';

export const clusterKeyPath = (env: NodeJS.ProcessEnv): string =>
  env.SHOAL_SECRETS_KEY_FILE?.trim() || join(env.SHOAL_DATA_DIR?.trim() || '.shoal', 'secrets.key');

const decodeKey = (text: string, path: string): Buffer => {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES || key.toString('base64') !== text.trim()) {
    throw new Error(`${path} does not hold a cluster key (${KEY_BYTES} bytes in base64): make one with \`openssl rand -base64 ${KEY_BYTES}\``);
  }
  return key;
};

/** The key in `path`; made there when `create` and there is none. */
export const loadClusterKey = async (path: string, create: boolean): Promise<Buffer> => {
  const read = (): Promise<string | undefined> =>
    readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
  const existing = await read();
  if (existing !== undefined) return decodeKey(existing, path);
  if (!create) throw new Error(`there is no cluster key at ${path}: set SHOAL_SECRETS_KEY_FILE to the file every API and dispatcher shares`);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Written aside, then linked into place: a reader never sees half a key, and of two processes making one, the first wins.
  const aside = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.new`;
  await writeFile(aside, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600 });
  try {
    await link(aside, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(aside);
  }
  return decodeKey((await read()) ?? '', path);
};
