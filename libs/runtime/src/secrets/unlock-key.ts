/**
 * Autolock's unlock key, in Docker's shape: `SWMKEY-1-` and 32 random bytes in base64
 * without padding. With autolock on, the cluster key's file holds the cluster key sealed
 * under it (AES-256-GCM), and a process that starts can open no secret until it is given
 * the unlock key (`docker swarm unlock`).
 */
import { randomBytes } from 'node:crypto';
import { KEY_BYTES, openSecretData, sealSecretData } from './secret-box';

const PREFIX = 'SWMKEY-1-';

/** A key that is not one: malformed, or not the one the cluster key was locked with. */
export class InvalidUnlockKeyError extends Error {}

export const newUnlockKey = (): Buffer => randomBytes(KEY_BYTES);

export const formatUnlockKey = (key: Buffer): string => `${PREFIX}${key.toString('base64').replace(/=+$/, '')}`;

/** The key's bytes; InvalidUnlockKeyError ("invalid key", Docker's words) when it is not one. */
export const parseUnlockKey = (text: string): Buffer => {
  const trimmed = text.trim();
  const body = trimmed.startsWith(PREFIX) ? trimmed.slice(PREFIX.length) : '';
  const key = Buffer.from(body, 'base64');
  if (key.length !== KEY_BYTES || formatUnlockKey(key) !== trimmed) throw new InvalidUnlockKeyError('invalid key');
  return key;
};

/** The cluster key sealed under the unlock key. */
export const lockClusterKey = (unlockKey: Buffer, clusterKey: Buffer): Buffer => sealSecretData(unlockKey, clusterKey, 'cluster-key');

/** The cluster key a locked file holds; InvalidUnlockKeyError with Docker's words for another key. */
export const unlockClusterKey = (unlockKey: Buffer, locked: Buffer): Buffer => {
  try {
    return openSecretData(unlockKey, locked, 'cluster-key');
  } catch {
    throw new InvalidUnlockKeyError('swarm could not be unlocked: invalid key provided');
  }
};
