/**
 * The checkpoint duty in a reaper process: when SHOAL_AUDIT_SIGNING_KEY names the
 * operator's Ed25519 key (PEM), an AuditCheckpointer follows the log beside the reaper and
 * signs while this process owns the reaper (see audit-checkpointer.ts for why the reaper).
 *   SHOAL_AUDIT_SIGNING_KEY          the private key (PEM file) checkpoints are signed with
 *   SHOAL_AUDIT_PREVIOUS_KEY         during a rotation, the key the log's checkpoints are signed with now
 *   SHOAL_AUDIT_CHECKPOINT_RECORDS   records between checkpoints (default 5000, at most 20000)
 *   SHOAL_AUDIT_CHECKPOINT_SECONDS   longest a record waits to be signed (default 60)
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { shoalSettings } from '@shoal/config';
import type { EventLog } from '@shoal/eventlog';
import { AuditCheckpointer } from './audit-checkpointer';
import type { CheckpointerOptions } from './audit-checkpointer';
import { readSigningKey } from './audit-keys';
import { COMPONENT_RUNNERS } from './component-tokens';
import type { ComponentRunner } from './component-runner';
import { makeInstanceId } from './instance';

/** The checkpoint writer's settings from the environment; undefined when no signing key is set. */
export const checkpointSettingsFromEnv = (env: NodeJS.ProcessEnv): Omit<CheckpointerOptions, 'term' | 'instance'> | undefined => {
  const settings = shoalSettings(env);
  const keyPath = settings.SHOAL_AUDIT_SIGNING_KEY;
  if (!keyPath) return undefined;
  const previous = settings.SHOAL_AUDIT_PREVIOUS_KEY;
  const cluster = settings.SHOAL_CLUSTER_ID;
  return {
    key: readSigningKey(keyPath),
    ...(previous ? { previousKey: readSigningKey(previous) } : {}),
    everyRecords: settings.SHOAL_AUDIT_CHECKPOINT_RECORDS,
    everyMs: settings.SHOAL_AUDIT_CHECKPOINT_SECONDS * 1000,
    ...(cluster ? { cluster } : {}),
  };
};

/** Signs checkpoints while the runner (the reaper's) is the active one. */
export const checkpointerFor = (log: EventLog, runner: ComponentRunner, settings: Omit<CheckpointerOptions, 'term' | 'instance'>, onError?: (message: string) => void): AuditCheckpointer =>
  new AuditCheckpointer(log, {
    ...settings,
    instance: makeInstanceId('reaper-audit'),
    term: () => (runner.state === 'active' ? runner.term : undefined),
    ...(onError ? { onError } : {}),
  });

@Injectable()
export class AuditCheckpointDuty implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private checkpointers: AuditCheckpointer[] = [];
  private readonly logger = new Logger('audit');

  /** One checkpointer per runner: a process that serves several clusters signs each one's log. */
  constructor(@Inject(COMPONENT_RUNNERS) private readonly runners: readonly ComponentRunner[]) {}

  onApplicationBootstrap(): void {
    const settings = checkpointSettingsFromEnv(process.env);
    if (!settings) return;
    this.checkpointers = this.runners.map((runner) => checkpointerFor(runner.log, runner, settings, (message) => this.logger.error(message)));
    for (const checkpointer of this.checkpointers) checkpointer.start();
    this.logger.log(`signing audit checkpoints with ${settings.key.fingerprint} every ${settings.everyRecords} records or ${(settings.everyMs ?? 0) / 1000} s`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.checkpointers.map((checkpointer) => checkpointer.stop()));
  }
}
