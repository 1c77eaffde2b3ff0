/**
 * The all-in-one process: one log, one view of it, the cluster object, and — as they
 * arrive — every component and the API in this one process. On the embedded log by
 * default, on Kafka when KAFKA_BROKERS is set.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { BeforeApplicationShutdown } from '@nestjs/common';
import { DEFAULT_CLUSTER_SPEC } from '@shoal/contracts';
import { ReaperCore } from '@shoal/domain';
import type { ComponentCore } from '@shoal/domain';
import { EVENT_LOG, FileSnapshotStore } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { ComponentRunner, EventWriter, LiveView, makeInstanceId, newJoinTokens } from '@shoal/runtime';
import { SHOAL_CONFIG } from './shoal.config';
import type { ShoalConfig } from './shoal.config';

@Injectable()
export class ShoalRunner implements BeforeApplicationShutdown {
  private readonly logger = new Logger('shoal');
  private view?: LiveView;
  private snapshots: FileSnapshotStore;
  private snapshotTimer?: NodeJS.Timeout;
  private snapshotAt = -1;
  private components: ComponentRunner[] = [];

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(SHOAL_CONFIG) private readonly config: ShoalConfig,
  ) {
    this.snapshots = new FileSnapshotStore(join(config.dataDir, 'snapshots', 'shoal'));
  }

  /** Replays (from the latest snapshot when there is one), follows, and makes sure the cluster exists. */
  async start(): Promise<LiveView> {
    const snapshot = await this.snapshots.latest();
    const view = new LiveView(this.log, snapshot ? { snapshot } : {});
    if (view.snapshotRefused) this.logger.warn(`not using snapshot: ${view.snapshotRefused}`);
    await view.start();
    this.view = view;
    if (!view.state.cluster) await this.initializeCluster(view);
    await this.startComponents(view.state.cluster!.id);
    this.snapshotTimer = setInterval(() => void this.saveSnapshot(), this.config.snapshotEveryMs);
    return view;
  }

  /** The components this build has, each with its own view and runner, as separate processes would run them. */
  private async startComponents(cluster: string): Promise<void> {
    const cores: ComponentCore[] = [new ReaperCore()];
    for (const core of cores) {
      const runner = new ComponentRunner(this.log, core, {
        cluster,
        instance: makeInstanceId(core.component),
        onActivity: (activity) => {
          if (activity.kind === 'error' || activity.kind === 'lost') this.logger.warn(`${core.component}: ${JSON.stringify(activity)}`);
        },
      });
      await runner.start();
      this.components.push(runner);
    }
    // Up means acting: every component owns its part, and this view has seen it take its term.
    for (const runner of this.components) await runner.untilActive();
    await this.view?.waitFor(await this.log.highWaterMark());
  }

  /** The components running in this process. */
  get running(): readonly string[] {
    return this.components.map((runner) => runner.component);
  }

  /** Saves a snapshot when the view has moved since the last one. */
  private async saveSnapshot(): Promise<void> {
    const view = this.view;
    if (!view || view.position === this.snapshotAt) return;
    const snapshot = view.projection.snapshot();
    await this.snapshots.save(snapshot);
    this.snapshotAt = snapshot.offset;
  }

  private async initializeCluster(view: LiveView): Promise<void> {
    const cluster = this.config.clusterId ?? `c${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const writer = new EventWriter(this.log, cluster, 'api', makeInstanceId('api'));
    const [verdict] = await writer.appendAndWait(view, [
      writer.propose('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: newJoinTokens(cluster) }),
    ]);
    if (verdict?.status !== 'applied') throw new Error(`could not initialize the cluster: ${verdict?.reasons.join('; ')}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.snapshotTimer);
    for (const runner of this.components.splice(0)) await runner.stop();
    const view = this.view;
    if (!view) return;
    await view.stop();
    await this.saveSnapshot();
    this.view = undefined;
  }
}
