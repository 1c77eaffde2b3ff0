/**
 * The operator's checkpoint signing keys: Ed25519 (node:crypto), read from PEM files.
 * SHOAL_AUDIT_SIGNING_KEY names the private key the checkpoint writer signs with;
 * SHOAL_AUDIT_PREVIOUS_KEY, during a rotation, the one the log's checkpoints are signed
 * with now (the writer signs one checkpoint with it that announces the new key).
 * A key is published as its public half (SPKI DER, base64) and known by its fingerprint.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkpointMessage } from '@shoal/contracts';
import type { AuditCheckpointed } from '@shoal/contracts';

export interface SigningKey {
  readonly privateKey: KeyObject;
  /** The public half: SPKI DER, base64 (as checkpoints carry it). */
  readonly publicKey: string;
  readonly fingerprint: string;
}

/** "SHA256:" and the hex SHA-256 of the public key's SPKI DER. */
export const keyFingerprint = (publicKey: string): string =>
  `SHA256:${createHash('sha256').update(Buffer.from(publicKey, 'base64')).digest('hex')}`;

const spki = (key: KeyObject): string => key.export({ type: 'spki', format: 'der' }).toString('base64');

/** A private Ed25519 key from PEM text; throws with what to fix. */
export const signingKeyFromPem = (pem: string, where = 'the key'): SigningKey => {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch (error) {
    throw new Error(`${where}: not a PEM private key (${(error as Error).message}); make one with: openssl genpkey -algorithm ed25519 -out audit.pem`);
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${where}: a ${privateKey.asymmetricKeyType} key; checkpoints are signed with Ed25519 (openssl genpkey -algorithm ed25519)`);
  const publicKey = spki(createPublicKey(privateKey));
  return { privateKey, publicKey, fingerprint: keyFingerprint(publicKey) };
};

export const readSigningKey = (path: string): SigningKey => {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the signing key ${path}: ${(error as Error).message}`);
  }
  return signingKeyFromPem(pem, path);
};

/** The public half (SPKI DER base64) of a PEM file holding either half of an Ed25519 key. */
export const readPublicKey = (path: string): string => {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the key ${path}: ${(error as Error).message}`);
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new Error(`${path}: not a PEM Ed25519 key (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${path}: a ${key.asymmetricKeyType} key; checkpoints are signed with Ed25519`);
  return spki(key);
};

/** A new Ed25519 key (for tests and `shoal audit keygen`). */
export const newSigningKey = (): { readonly key: SigningKey; readonly pem: string } => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { key: signingKeyFromPem(pem), pem };
};

export const signCheckpoint = (cluster: string, data: Omit<AuditCheckpointed, 'signature' | 'key'>, key: SigningKey): AuditCheckpointed => {
  const unsigned = { ...data, key: key.publicKey };
  const signature = sign(null, Buffer.from(checkpointMessage(cluster, unsigned), 'utf8'), key.privateKey).toString('base64');
  return { ...unsigned, signature };
};

/** Whether the checkpoint's signature is its key's over its fields (not whether the key is trusted). */
export const checkpointSignatureHolds = (cluster: string, data: AuditCheckpointed): boolean => {
  try {
    const publicKey = createPublicKey({ key: Buffer.from(data.key, 'base64'), format: 'der', type: 'spki' });
    const { signature, ...unsigned } = data;
    return verify(null, Buffer.from(checkpointMessage(cluster, unsigned), 'utf8'), publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
};
