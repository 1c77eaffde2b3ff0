/**
 * Seals and opens secrets: the cluster's key and the data-key store together. The API seals
 * a secret as it is created (a data key of its own, put in the store before the record
 * that carries the sealed bytes is written) and destroys its key once the removal is
 * applied; the dispatcher opens a secret as it sends it to a node that runs a task using it.
 */
import type { DataKeyStore } from '@shoal/eventlog';
import { newDataKey, openSecretData, sealSecretData, unwrapDataKey, wrapDataKey } from './secret-box';

/** A secret whose data key is not in the store: destroyed (the secret was removed), or never put. */
export class SecretKeyMissingError extends Error {
  constructor(readonly secretId: string) {
    super(`secret ${secretId} cannot be opened: its data key is not in the store (destroyed when the secret was removed, or lost)`);
  }
}

/** How long a key with no secret on the log is kept before the sweep destroys it: a create in flight takes far less. */
export const ORPHAN_KEY_AGE_MS = 10 * 60_000;

/** The store's entry that tells whether a process holds the cluster's key: a random key wrapped by it, put by the first process. */
export const KEY_CHECK_ID = 'cluster-key-check';

/** The store's entry that keeps autolock's unlock key, wrapped by the cluster key (cluster-keyring.ts). */
export const UNLOCK_KEY_ID = 'unlock-key';

export class SecretVault {
  constructor(
    private readonly clusterKey: Buffer,
    readonly store: DataKeyStore,
  ) {}

  /**
   * Refuses a cluster key that is not the one the store's keys are wrapped by (another
   * process made its own): the first vault on a store leaves a check entry there.
   */
  async checkClusterKey(path: string): Promise<void> {
    const check = await this.store.get(KEY_CHECK_ID);
    if (!check) {
      await this.store.put(KEY_CHECK_ID, wrapDataKey(this.clusterKey, newDataKey(), KEY_CHECK_ID));
      return;
    }
    try {
      unwrapDataKey(this.clusterKey, check.wrapped, KEY_CHECK_ID);
    } catch {
      throw new Error(
        `the cluster key in ${path} is not the one this cluster's secrets are kept under (${this.store.description}): ` +
          'give every API and dispatcher the same key file (SHOAL_SECRETS_KEY_FILE)',
      );
    }
  }

  /** Seals `data` for secret `id` with a new data key, kept (wrapped) in the store; the sealed bytes, base64. */
  async seal(id: string, data: Buffer): Promise<string> {
    const dataKey = newDataKey();
    const sealed = sealSecretData(dataKey, data, id);
    await this.store.put(id, wrapDataKey(this.clusterKey, dataKey, id));
    dataKey.fill(0);
    return sealed.toString('base64');
  }

  /** Opens a secret with the key as last read (no wait): SecretKeyMissingError when the store has none. */
  openNow(id: string, sealed: string): Buffer {
    const stored = this.store.peek(id);
    if (!stored) throw new SecretKeyMissingError(id);
    return this.openWith(id, sealed, stored.wrapped);
  }

  /** Opens a secret once the store has caught up. */
  async open(id: string, sealed: string): Promise<Buffer> {
    const stored = await this.store.get(id);
    if (!stored) throw new SecretKeyMissingError(id);
    return this.openWith(id, sealed, stored.wrapped);
  }

  /** Destroys secret `id`'s data key: its sealed bytes can never be opened again. */
  destroy(id: string): Promise<void> {
    return this.store.destroy(id);
  }

  /**
   * Destroys the keys of secrets the log no longer has (a removal whose destroy failed) or
   * never got (a create whose record was not written), once older than `minAgeMs`. The ids
   * of the keys destroyed.
   */
  async sweep(onTheLog: (id: string) => boolean, now = Date.now(), minAgeMs = ORPHAN_KEY_AGE_MS): Promise<string[]> {
    const destroyed: string[] = [];
    for (const [id, key] of await this.store.list()) {
      if (id === KEY_CHECK_ID || id === UNLOCK_KEY_ID || onTheLog(id) || now - key.at < minAgeMs) continue;
      await this.store.destroy(id);
      destroyed.push(id);
    }
    return destroyed;
  }


  private openWith(id: string, sealed: string, wrapped: Buffer): Buffer {
    const dataKey = unwrapDataKey(this.clusterKey, wrapped, id);
    try {
      return openSecretData(dataKey, Buffer.from(sealed, 'base64'), id);
    } finally {
      dataKey.fill(0);
    }
  }
}
