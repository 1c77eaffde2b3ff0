/**
 * The ciphers of secrets: AES-256-GCM throughout, a fresh 12-byte nonce each time, the
 * secret's id as associated data (sealed bytes or a wrapped key moved to another secret do
 * not open). A secret's bytes are sealed with a data key of its own; the data key is
 * wrapped by the cluster's key. Both come out as nonce ‖ ciphertext ‖ tag.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

const seal = (key: Buffer, plain: Buffer, aad: string): Buffer => {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]);
};

/** The plain bytes, or an error saying they do not open under this key (tampered, or another key). */
const open = (key: Buffer, sealed: Buffer, aad: string, what: string): Buffer => {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) throw new Error(`${what} is ${sealed.length} bytes: too short to be sealed`);
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new Error(`${what} does not open with this key: it was sealed under another key, or changed`);
  }
};

/** A new data key. */
export const newDataKey = (): Buffer => randomBytes(KEY_BYTES);

export const sealSecretData = (dataKey: Buffer, data: Buffer, secretId: string): Buffer => seal(dataKey, data, `secret:${secretId}`);
export const openSecretData = (dataKey: Buffer, sealed: Buffer, secretId: string): Buffer => open(dataKey, sealed, `secret:${secretId}`, `secret ${secretId}'s data`);

export const wrapDataKey = (clusterKey: Buffer, dataKey: Buffer, secretId: string): Buffer => seal(clusterKey, dataKey, `data-key:${secretId}`);
export const unwrapDataKey = (clusterKey: Buffer, wrapped: Buffer, secretId: string): Buffer =>
  open(clusterKey, wrapped, `data-key:${secretId}`, `secret ${secretId}'s data key (set the same SHOAL_SECRETS_KEY_FILE on every API and dispatcher)`);

/** A join token sealed under the cluster key, bound to its hash (a sealed token moved beside another hash does not open). */
export const sealJoinToken = (clusterKey: Buffer, token: string, hash: string): Buffer => seal(clusterKey, Buffer.from(token, 'utf8'), `join-token:${hash}`);
export const openJoinToken = (clusterKey: Buffer, sealed: Buffer, hash: string): string =>
  open(clusterKey, sealed, `join-token:${hash}`, 'a join token on the log (set the same SHOAL_SECRETS_KEY_FILE on every API and dispatcher)').toString('utf8');

/** A root CA's private key (PEM) sealed under the cluster key, bound to the root's digest (a sealed key moved beside another root does not open). */
export const sealRootCaKey = (clusterKey: Buffer, keyPem: string, rootDigest: string): Buffer => seal(clusterKey, Buffer.from(keyPem, 'utf8'), `root-ca-key:${rootDigest}`);
export const openRootCaKey = (clusterKey: Buffer, sealed: Buffer, rootDigest: string): string =>
  open(clusterKey, sealed, `root-ca-key:${rootDigest}`, "the root CA's key on the log (set the same SHOAL_SECRETS_KEY_FILE on every API and dispatcher)").toString('utf8');
