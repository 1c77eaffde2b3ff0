/**
 * The API's way to its SecretVault, opened on first use (an API whose cluster has no secret
 * never opens the store). The first open also sweeps the store: a key whose secret the log
 * no longer has (its removal applied, its destroy lost to a crash) or never got (a create
 * that failed after its key was put) is destroyed once it is old enough.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { BeforeApplicationShutdown } from '@nestjs/common';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { openSecretVault } from '@shoal/runtime';
import type { LiveView, SecretVault } from '@shoal/runtime';
import { API_CONFIG, API_VIEW } from '../api.tokens';
import type { ApiConfig } from '../api.config';

@Injectable()
export class ApiSecretVault implements BeforeApplicationShutdown {
  private readonly logger = new Logger('secrets');
  private opening: Promise<SecretVault> | undefined;

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(API_VIEW) private readonly view: LiveView,
  ) {}

  vault(): Promise<SecretVault> {
    this.opening ??= this.open().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }

  async beforeApplicationShutdown(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    if (opening) await (await opening.catch(() => undefined))?.close();
  }

  private async open(): Promise<SecretVault> {
    const vault = await openSecretVault(this.log, this.config.dataDir);
    const swept = await vault.sweep((id) => this.view.state.secrets.has(id)).catch((error: unknown) => {
      this.logger.warn(`could not sweep the data keys of secrets no longer on the log: ${(error as Error).message}`);
      return [];
    });
    if (swept.length > 0) this.logger.log(`destroyed the data keys of ${swept.length} secret(s) no longer on the log: ${swept.join(', ')}`);
    return vault;
  }
}
