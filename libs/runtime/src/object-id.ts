/**
 * Ids in Docker's shape: 25 lowercase base-36 characters, from 16 random bytes — what
 * services, tasks and nodes are called on the log and by the docker CLI.
 */
import { randomBytes } from 'node:crypto';

/** The last `length` base-36 digits of `bytes`, zero-padded. */
export const base36 = (bytes: Buffer, length: number): string =>
  BigInt(`0x${bytes.toString('hex')}`).toString(36).padStart(length, '0').slice(-length);

export const newObjectId = (): string => base36(randomBytes(16), 25);
