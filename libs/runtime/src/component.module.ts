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

export { COMPONENT_CORE, COMPONENT_RUNNER };

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
        {
          provide: COMPONENT_RUNNER,
          inject: [EVENT_LOG, COMPONENT_CORE],
          useFactory: (log: EventLog, core: ComponentCore) => {
            const logger = new Logger(core.component);
            const { cluster, snapshots } = componentSettingsFromEnv(env, core.component);
            return new ComponentRunner(log, core, {
              instance: makeInstanceId(core.component),
              ...(cluster ? { cluster } : {}),
              ...(snapshots ? { snapshots } : {}),
              onActivity: (activity) => {
                if (activity.kind === 'owner') logger.log(`active under term ${activity.term}`);
                else if (activity.kind === 'lost') logger.warn(`lost ownership: ${activity.reason}`);
                else if (activity.kind === 'error') logger.error(activity.message);
                else if (activity.kind === 'restored') logger.log(`view restored from the snapshot at offset ${activity.offset}`);
                else if (activity.kind === 'not restored') logger.warn(`not using a snapshot: ${activity.reason}`);
              },
            });
          },
        },
        ComponentLifecycle,
      ],
      exports: [COMPONENT_RUNNER],
    };
  }
}
