/**
 * Nest wiring for one component: its core (componentCore), a ComponentRunner over the
 * EVENT_LOG, started when the application boots and stopped (lease released, view saved
 * and closed) before it shuts down, and its /healthz, /statez and /readyz. The cluster it
 * writes for and its view's snapshots are as the environment says (componentSettingsFromEnv).
 */
import { Inject, Injectable, Logger, Module } from '@nestjs/common';
import type { BeforeApplicationShutdown, DynamicModule, OnApplicationBootstrap } from '@nestjs/common';
import type { ComponentCore } from '@shoal/domain';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { componentCore } from './component-cores';
import type { ControlPlaneComponent } from './component-cores';
import { ComponentRunner } from './component-runner';
import { componentSettingsFromEnv } from './component-settings';
import { makeInstanceId } from './instance';
import { COMPONENT_CORE, COMPONENT_RUNNER } from './component-tokens';
import { ComponentHealthController } from './component-health';
import { PROCESS_METRICS, ProcessMetrics } from './process-metrics';

export { COMPONENT_CORE, COMPONENT_RUNNER, PROCESS_METRICS };

@Injectable()
class ComponentLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(COMPONENT_RUNNER) private readonly runner: ComponentRunner) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }
}

@Module({})
export class ComponentModule {
  /** Runs `component`'s core; the log comes from EventLogModule, the rest from `env`. */
  static forComponent(component: ControlPlaneComponent, env: NodeJS.ProcessEnv = process.env): DynamicModule {
    return {
      module: ComponentModule,
      controllers: [ComponentHealthController],
      providers: [
        { provide: COMPONENT_CORE, useFactory: () => componentCore(component) },
        { provide: PROCESS_METRICS, useFactory: () => new ProcessMetrics() },
        {
          provide: COMPONENT_RUNNER,
          inject: [EVENT_LOG, COMPONENT_CORE, PROCESS_METRICS],
          useFactory: (log: EventLog, core: ComponentCore, metrics: ProcessMetrics) => {
            const logger = new Logger(core.component);
            const { cluster, snapshots } = componentSettingsFromEnv(env, core.component);
            const instance = makeInstanceId(core.component);
            const runner: ComponentRunner = new ComponentRunner(log, core, {
              instance,
              metrics,
              ...(cluster ? { cluster } : {}),
              ...(snapshots ? { snapshots } : {}),
              onActivity: (activity) => {
                const at = { instance, offset: runner.view.position, ...(runner.term !== undefined ? { term: runner.term } : {}) };
                if (activity.kind === 'owner') logger.log({ msg: `active under term ${activity.term}`, ...at, term: activity.term });
                else if (activity.kind === 'lost') logger.warn({ msg: `lost ownership: ${activity.reason}`, ...at });
                else if (activity.kind === 'error') logger.error({ msg: activity.message, ...at });
                else if (activity.kind === 'restored') logger.log({ msg: `view restored from the snapshot at offset ${activity.offset}`, instance, offset: activity.offset });
                else if (activity.kind === 'not restored') logger.warn({ msg: `not using a snapshot: ${activity.reason}`, ...at });
                else if (activity.kind === 'appended') {
                  logger.debug({ msg: `appended ${activity.count} records, ${activity.rejected} rejected`, ...at, eventIds: activity.ids });
                  for (const refusal of activity.refused) logger.debug({ msg: `${refusal.type} refused in part or whole: ${refusal.reasons.join('; ')}`, ...at, eventId: refusal.eventId });
                }
              },
            });
            return runner;
          },
        },
        ComponentLifecycle,
      ],
      exports: [COMPONENT_RUNNER, PROCESS_METRICS],
    };
  }
}
