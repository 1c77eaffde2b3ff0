/**
 * Nest wiring for one component: its core (componentCore), a ComponentRunner over the
 * EVENT_LOG, started when the application boots and stopped (lease released, view saved
 * and closed) before it shuts down, and its /healthz, /statez and /readyz. The cluster it
 * writes for and its view's snapshots are as the environment says (componentSettingsFromEnv).
 *
 * A process that serves several clusters (SHOAL_PARTITIONS on Kafka) runs one core and one
 * runner per partition, each with its view, its lease and its snapshots
 * (`snapshots/partition-<n>/<component>` beyond partition 0), all under one instance name:
 * the lease groups spread the partitions over the instances by it (lease-assigner.ts).
 */
import { Inject, Injectable, Logger, Module } from '@nestjs/common';
import type { BeforeApplicationShutdown, DynamicModule, OnApplicationBootstrap } from '@nestjs/common';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { componentCore } from './component-cores';
import type { ControlPlaneComponent } from './component-cores';
import { ComponentRunner } from './component-runner';
import { firstPartition, shoalSettings } from '@shoal/config';
import { KafkaEventLog, logSettingsFromEnv } from '@shoal/eventlog';
import { componentSettingsFromEnv } from './component-settings';
import type { ComponentSettings } from './component-settings';
import { makeInstanceId } from './instance';
import { COMPONENT_CORE, COMPONENT_RUNNER, COMPONENT_RUNNERS } from './component-tokens';
import { viewSnapshotsIn } from './view-snapshots';
import { ComponentHealthController } from './component-health';
import { PROCESS_METRICS, ProcessMetrics } from './process-metrics';

export { COMPONENT_CORE, COMPONENT_RUNNER, COMPONENT_RUNNERS, PROCESS_METRICS };

/** The partitions a component process serves: SHOAL_PARTITIONS's (as the log read it), those of the topic for `all`; one on the embedded log. */
const partitionsServed = async (log: EventLog, env: NodeJS.ProcessEnv): Promise<number[]> => {
  const { partitions } = logSettingsFromEnv(env);
  if (!(log instanceof KafkaEventLog)) return [firstPartition(partitions)];
  return partitions === 'all' ? log.partitions() : [...partitions];
};

/** One runner of `component` on `log`, logging what it does; `partition` is named when the process serves several. */
const newRunner = (log: EventLog, component: ControlPlaneComponent, instance: string, settings: Pick<ComponentSettings, 'cluster' | 'snapshots'>, metrics: ProcessMetrics, partition?: number): ComponentRunner => {
  const core = componentCore(component);
  const logger = new Logger(core.component);
  const named = partition === undefined ? {} : { partition };
  const runner: ComponentRunner = new ComponentRunner(log, core, {
    instance,
    metrics,
    ...(partition === undefined ? {} : { viewName: `${core.component}/${partition}`, partition }),
    ...(settings.cluster ? { cluster: settings.cluster } : {}),
    ...(settings.snapshots ? { snapshots: settings.snapshots } : {}),
    onActivity: (activity) => {
      const at = { instance, ...named, offset: runner.view.position, ...(runner.term !== undefined ? { term: runner.term } : {}) };
      if (activity.kind === 'owner') logger.log({ msg: `active under term ${activity.term}`, ...at, term: activity.term });
      else if (activity.kind === 'lost') logger.warn({ msg: `lost ownership: ${activity.reason}`, ...at });
      else if (activity.kind === 'error') logger.error({ msg: activity.message, ...at });
      else if (activity.kind === 'restored') logger.log({ msg: `view restored from the snapshot at offset ${activity.offset}`, instance, ...named, offset: activity.offset });
      else if (activity.kind === 'snapshot saved') logger.log({ msg: `snapshot saved at offset ${activity.offset} in ${activity.ms} ms`, instance, ...named, offset: activity.offset, ms: activity.ms });
      else if (activity.kind === 'not restored') logger.warn({ msg: `not using a snapshot: ${activity.reason}`, ...at });
      else if (activity.kind === 'appended') {
        logger.debug({ msg: `appended ${activity.count} records, ${activity.rejected} rejected`, ...at, eventIds: activity.ids });
        for (const refusal of activity.refused) logger.debug({ msg: `${refusal.type} refused in part or whole: ${refusal.reasons.join('; ')}`, ...at, eventId: refusal.eventId });
      }
    },
  });
  return runner;
};

/** The runners of `component` for every partition the process serves, in partition order. */
const runnersFor = async (log: EventLog, component: ControlPlaneComponent, env: NodeJS.ProcessEnv, metrics: ProcessMetrics): Promise<ComponentRunner[]> => {
  const settings = componentSettingsFromEnv(env, component);
  const instance = makeInstanceId(component);
  const partitions = await partitionsServed(log, env);
  const onlyItsOwn = partitions.length === 1 && partitions[0] === (log instanceof KafkaEventLog ? log.partition : 0);
  if (onlyItsOwn || !(log instanceof KafkaEventLog)) return [newRunner(log, component, instance, settings, metrics)];
  const { SHOAL_DATA_DIR, SHOAL_SNAPSHOT_EVERY_MS } = shoalSettings(env);
  return Promise.all(
    partitions.map(async (partition) => {
      const snapshots = partition === 0 ? settings.snapshots : viewSnapshotsIn(SHOAL_DATA_DIR, `partition-${partition}/${component}`, SHOAL_SNAPSHOT_EVERY_MS);
      const own = { ...(settings.cluster ? { cluster: settings.cluster } : {}), ...(snapshots ? { snapshots } : {}) };
      // The log of each partition on the opened log's client: the opened log itself for its own.
      return newRunner(await log.partitionLog(partition), component, instance, own, metrics, partition);
    }),
  );
};

@Injectable()
class ComponentLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(COMPONENT_RUNNERS) private readonly runners: readonly ComponentRunner[]) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all(this.runners.map((runner) => runner.start()));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.runners.map((runner) => runner.stop()));
  }
}

@Module({})
export class ComponentModule {
  /** Runs `component`'s core, once per partition served; the log comes from EventLogModule, the rest from `env`. */
  static forComponent(component: ControlPlaneComponent, env: NodeJS.ProcessEnv = process.env): DynamicModule {
    return {
      module: ComponentModule,
      controllers: [ComponentHealthController],
      providers: [
        { provide: PROCESS_METRICS, useFactory: () => new ProcessMetrics() },
        {
          provide: COMPONENT_RUNNERS,
          inject: [EVENT_LOG, PROCESS_METRICS],
          useFactory: (log: EventLog, metrics: ProcessMetrics) => runnersFor(log, component, env, metrics),
        },
        { provide: COMPONENT_RUNNER, inject: [COMPONENT_RUNNERS], useFactory: (runners: readonly ComponentRunner[]) => runners[0] },
        { provide: COMPONENT_CORE, inject: [COMPONENT_RUNNER], useFactory: (runner: ComponentRunner) => runner.core },
        ComponentLifecycle,
      ],
      exports: [COMPONENT_RUNNER, COMPONENT_RUNNERS, PROCESS_METRICS],
    };
  }
}
