/**
 * A process's hold on the cluster key, and the vault it opens once the key is there.
 * Without autolock the key is read from its file and the keyring is open from the start.
 * With autolock the file holds the key locked, and so is the keyring, until it is given the
 * unlock key: the API by `docker swarm unlock`, a dispatcher by SHOAL_UNLOCK_KEY_FILE at
 * its start (or, in the all-in-one, by the API's unlock, the two sharing one keyring).
 * While locked, no secret is sealed or opened, and the API serves nothing of the swarm.
 *
 * The unlock key itself is kept in the data-key store, wrapped by the cluster key (as
 * SwarmKit keeps it in its raft store): any unlocked process can show it
 * (`docker swarm unlock-key`), and none that is locked can.
 */
import { joinTokenDigest } from '@shoal/contracts';
import type { JoinTokens, KeptJoinToken, KeptJoinTokens, SealedJoinToken } from '@shoal/contracts';
import { joinTokenHash } from '@shoal/domain';
import type { EventLog } from '@shoal/eventlog';
import { openDataKeyStore } from '@shoal/eventlog';
import type { DataKeyStore } from '@shoal/eventlog';
import { clusterKeyPath, readClusterKeyFile, writeClusterKeyFile } from './cluster-key';
import { openJoinToken, openRootCaKey, sealJoinToken, sealRootCaKey, unwrapDataKey, wrapDataKey } from './secret-box';
import { formatUnlockKey, InvalidUnlockKeyError, lockClusterKey, newUnlockKey, parseUnlockKey, unlockClusterKey } from './unlock-key';
import { SecretVault, UNLOCK_KEY_ID } from './secret-vault';

/** Docker's words for a manager that is locked. */
export const SWARM_LOCKED_MESSAGE = 'Swarm is encrypted and needs to be unlocked before it can be used. Please use "docker swarm unlock" to unlock it.';

export class SwarmLockedError extends Error {
  constructor() {
    super(SWARM_LOCKED_MESSAGE);
  }
}

/** `docker swarm unlock` on a keyring that is not locked (Docker: "swarm is not locked"). */
export class NotLockedError extends Error {
  constructor() {
    super('swarm is not locked');
  }
}

export { InvalidUnlockKeyError };

export class ClusterKeyring {
  private key: Buffer | undefined;
  private locked: Buffer | undefined;
  private store: Promise<DataKeyStore> | undefined;
  private opened: Promise<SecretVault> | undefined;
  private readonly waiting: (() => void)[] = [];

  private constructor(
    readonly path: string,
    private readonly log: EventLog,
    private readonly dataDir: string,
  ) {}

  /** Reads (or makes) the key file; locked if it holds the key locked. */
  static async open(log: EventLog, dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<ClusterKeyring> {
    const keyring = new ClusterKeyring(clusterKeyPath({ ...env, SHOAL_DATA_DIR: dataDir }), log, dataDir);
    const file = await readClusterKeyFile(keyring.path, true);
    if ('key' in file) keyring.key = file.key;
    else keyring.locked = file.locked;
    return keyring;
  }

  get isLocked(): boolean {
    return this.key === undefined;
  }

  /** Gives the keyring its unlock key: NotLockedError, or InvalidUnlockKeyError with Docker's words. */
  async unlock(text: string): Promise<void> {
    if (!this.locked || this.key) throw new NotLockedError();
    this.key = unlockClusterKey(parseUnlockKey(text), this.locked);
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  /** Resolves once the keyring is unlocked (at once if it is not locked). */
  unlocked(): Promise<void> {
    return this.key ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }

  /** A join token as the log keeps it: its hash and the token sealed under the cluster key. SwarmLockedError while locked. */
  keepJoinToken(token: string): SealedJoinToken {
    const hash = joinTokenHash(token);
    return { digest: joinTokenDigest(token), hash, sealed: sealJoinToken(this.openKey(), token, hash).toString('base64') };
  }

  keepJoinTokens(tokens: JoinTokens): { readonly worker: SealedJoinToken; readonly manager: SealedJoinToken } {
    return { worker: this.keepJoinToken(tokens.worker), manager: this.keepJoinToken(tokens.manager) };
  }

  /** A kept join token in the clear (one from a record before level 5 is as it was written). SwarmLockedError while locked. */
  openJoinToken(kept: KeptJoinToken): string {
    if (typeof kept === 'string') return kept;
    return openJoinToken(this.openKey(), Buffer.from(kept.sealed, 'base64'), kept.hash);
  }

  openJoinTokens(kept: KeptJoinTokens): JoinTokens {
    return { worker: this.openJoinToken(kept.worker), manager: this.openJoinToken(kept.manager) };
  }

  /** A root CA's private key (PEM) as the log keeps it: sealed under the cluster key, bound to the root's digest. SwarmLockedError while locked. */
  keepRootCaKey(keyPem: string, rootDigest: string): string {
    return sealRootCaKey(this.openKey(), keyPem, rootDigest).toString('base64');
  }

  /** A root CA's private key (PEM) from the log. SwarmLockedError while locked. */
  openRootCaKey(sealed: string, rootDigest: string): string {
    return openRootCaKey(this.openKey(), Buffer.from(sealed, 'base64'), rootDigest);
  }

  /** The vault, opened once (the store, and the check that this is the cluster's key); SwarmLockedError while locked. */
  vault(): Promise<SecretVault> {
    const key = this.key;
    if (!key) return Promise.reject(new SwarmLockedError());
    this.opened ??= (async () => {
      const vault = new SecretVault(key, await this.dataKeys());
      await vault.checkClusterKey(this.path);
      return vault;
    })().catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
    return this.opened;
  }

  /**
   * Autolock on: a new unlock key locks the key file, and is kept (wrapped) in the store.
   * Off: the file holds the key again, and the store forgets the unlock key. Both need the
   * keyring unlocked; the unlock key, formatted, or '' when off.
   */
  async setAutolock(on: boolean): Promise<string> {
    const key = this.key;
    if (!key) throw new SwarmLockedError();
    const store = await this.dataKeys();
    if (!on) {
      await writeClusterKeyFile(this.path, { key });
      this.locked = undefined;
      await store.destroy(UNLOCK_KEY_ID);
      return '';
    }
    const unlockKey = newUnlockKey();
    const locked = lockClusterKey(unlockKey, key);
    await store.put(UNLOCK_KEY_ID, wrapDataKey(key, unlockKey, UNLOCK_KEY_ID));
    await writeClusterKeyFile(this.path, { locked });
    this.locked = locked;
    return formatUnlockKey(unlockKey);
  }

  /** The unlock key, formatted; '' when autolock is off. SwarmLockedError while locked. */
  async unlockKey(): Promise<string> {
    const key = this.key;
    if (!key) throw new SwarmLockedError();
    const stored = await (await this.dataKeys()).get(UNLOCK_KEY_ID);
    return stored ? formatUnlockKey(unwrapDataKey(key, stored.wrapped, UNLOCK_KEY_ID)) : '';
  }

  async close(): Promise<void> {
    const store = this.store;
    this.store = undefined;
    this.opened = undefined;
    if (store) await (await store.catch(() => undefined))?.close();
  }

  private openKey(): Buffer {
    if (!this.key) throw new SwarmLockedError();
    return this.key;
  }

  private dataKeys(): Promise<DataKeyStore> {
    this.store ??= openDataKeyStore(this.log, this.dataDir).catch((error: unknown) => {
      this.store = undefined;
      throw error;
    });
    return this.store;
  }
}
