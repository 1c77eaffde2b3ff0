/**
 * The API's cluster keyring (libs/runtime's ClusterKeyring) and the vault it opens: the
 * keyring of the process hosting the API (the all-in-one shares one with its dispatcher),
 * or one of the API's own, read as the API starts. Locked (autolock) until
 * `docker swarm unlock`. The vault is opened on first use (an API whose cluster has no
 * secret never opens the store); that first open also sweeps the store: a key whose secret
 * the log no longer has (its removal applied, its destroy lost to a crash) or never got (a
 * create that failed after its key was put) is destroyed once it is old enough.
 */
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { BeforeApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { ClusterKeyring } from '@shoal/runtime';
import type { LiveView, SecretVault } from '@shoal/runtime';
import { API_CONFIG, API_KEYRING, API_VIEW } from '../api.tokens';
import type { ApiConfig } from '../api.config';

@Injectable()
export class ApiSecretVault implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('secrets');
  private keyringValue: ClusterKeyring | undefined;
  private swept: Promise<void> | undefined;

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(API_VIEW) private readonly view: LiveView,
    @Optional() @Inject(API_KEYRING) private readonly shared?: ClusterKeyring,
  ) {}

  async onModuleInit(): Promise<void> {
    this.keyringValue = this.shared ?? (await ClusterKeyring.open(this.log, this.config.dataDir));
  }

  get keyring(): ClusterKeyring {
    if (!this.keyringValue) throw new Error('the API has not started');
    return this.keyringValue;
  }

  /** Whether the cluster key is locked (autolock) and the API must be unlocked first. */
  get isLocked(): boolean {
    return this.keyring.isLocked;
  }

  /** The vault (SwarmLockedError while locked); the store swept on the first open. */
  async vault(): Promise<SecretVault> {
    const vault = await this.keyring.vault();
    this.swept ??= this.sweep(vault);
    await this.swept;
    return vault;
  }

  async beforeApplicationShutdown(): Promise<void> {
    // A keyring the host gave is the host's to close.
    if (!this.shared) await this.keyringValue?.close();
  }

  private async sweep(vault: SecretVault): Promise<void> {
    const swept = await vault.sweep((id) => this.view.state.secrets.has(id)).catch((error: unknown) => {
      this.logger.warn(`could not sweep the data keys of secrets no longer on the log: ${(error as Error).message}`);
      return [];
    });
    if (swept.length > 0) this.logger.log(`destroyed the data keys of ${swept.length} secret(s) no longer on the log: ${swept.join(', ')}`);
  }
}
