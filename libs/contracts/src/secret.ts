/**
 * Secrets: small files a service's tasks are given (Docker's `docker secret`), never in the
 * clear on the log. Each secret's bytes are sealed (AES-256-GCM) with a data key of its
 * own; the data key, wrapped by the cluster's key, is kept beside the log in a store that
 * can forget it (docs/secrets.md). Removing a secret destroys its data key: the sealed
 * bytes on the log can never be opened again, while the records that it was created,
 * relabelled, used and removed stay for the audit.
 */
import type { ConfigFileTarget } from './config';

export interface SecretSpec {
  /** Unique in the cluster (Docker's rule for config names). */
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/** A secret's bytes, sealed with its data key: base64 of nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes). */
export interface SealedSecret {
  readonly sealed: string;
}

/** A secret a task spec uses, by id; the name is what the user called it (Docker keeps both). */
export interface SecretReference {
  readonly secretId: string;
  readonly secretName: string;
  /** A relative name is taken from /run/secrets, as Docker's. */
  readonly file: ConfigFileTarget;
}

/** SwarmKit's MaxSecretSize: a secret's data is at least one byte and less than this. */
export const MAX_SECRET_BYTES = 500 * 1024;

/** Where a relative secret target is put in the container. */
export const SECRETS_DIR = '/run/secrets';

/** The bytes of nonce and tag a sealed secret carries beside its ciphertext. */
export const SEAL_OVERHEAD = 12 + 16;
