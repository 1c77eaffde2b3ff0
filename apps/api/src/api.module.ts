/**
 * The control API: Docker's Engine API (swarm subset) for the stock docker CLI, and
 * Shoal's own audit surface. Its shared providers (view, writer, config) come from
 * ApiCoreModule; each feature is a module of its own, listed here.
 */
import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { ShoalConfigModule } from '@shoal/config';
import { EVENT_LOG, EventLogModule } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { ProcessMetrics } from '@shoal/runtime';
import type { ClusterKeyring } from '@shoal/runtime';
import type { ApiConfig } from './api.config';
import { API_KEYRING, API_METRICS } from './api.tokens';
import { ApiCoreModule } from './api-core.module';
import { DockerModule } from './docker/docker.module';
import { AuditModule } from './audit/audit.module';
import { EventsModule } from './events/events.module';
import { NetworksModule } from './networks/networks.module';
import { ConfigsModule } from './configs/configs.module';
import { SecretsModule } from './secrets/secrets.module';
import { HealthModule } from './health/health.module';
import { ClusterModule } from './cluster/cluster.module';
import { ConsoleModule } from './console/console.module';

export interface ApiModuleOptions {
  readonly config: ApiConfig;
  /** A log opened elsewhere (the all-in-one process), which stays open after the API closes; else from the environment. */
  readonly log?: EventLog;
  /** The metrics of the process hosting the API, shared with the parts beside it; else the API's own. */
  readonly metrics?: ProcessMetrics;
  /** The cluster keyring of the process hosting the API, shared with its dispatcher; else the API's own. */
  readonly keyring?: ClusterKeyring;
}

/** Provides the keyring of the process hosting the API. */
@Module({})
class HostKeyringModule {
  static of(keyring: ClusterKeyring): DynamicModule {
    return { module: HostKeyringModule, global: true, providers: [{ provide: API_KEYRING, useValue: keyring }], exports: [API_KEYRING] };
  }
}

/** Provides the metrics of the process hosting the API. */
@Module({})
class ProcessMetricsModule {
  static of(metrics: ProcessMetrics): DynamicModule {
    return { module: ProcessMetricsModule, global: true, providers: [{ provide: API_METRICS, useValue: metrics }], exports: [API_METRICS] };
  }
}

/** Provides a log opened by someone else, without closing it. */
@Module({})
class BorrowedLogModule {
  static of(log: EventLog): DynamicModule {
    return { module: BorrowedLogModule, global: true, providers: [{ provide: EVENT_LOG, useValue: log }], exports: [EVENT_LOG] };
  }
}

@Module({
  imports: [DockerModule, AuditModule, EventsModule, NetworksModule, ConfigsModule, SecretsModule, HealthModule, ClusterModule, ConsoleModule],
})
export class ApiModule {
  static forRoot(options: ApiModuleOptions): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ShoalConfigModule.forRoot(),
        options.log ? BorrowedLogModule.of(options.log) : EventLogModule.forRoot(process.env, 'shoal-api'),
        ApiCoreModule.forRoot(options.config),
        // Made before the view, which reports to it from its first record.
        ProcessMetricsModule.of(options.metrics ?? new ProcessMetrics()),
        ...(options.keyring ? [HostKeyringModule.of(options.keyring)] : []),
      ],
    };
  }
}
