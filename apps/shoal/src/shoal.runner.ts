/**
 * The all-in-one process: one log, and on it everything a cluster needs, each part with
 * its own view as separate processes would have — the allocator, orchestrator, scheduler
 * and reaper, the dispatcher (agents join over gRPC), the API (Docker's swarm API on a unix
 * socket and 127.0.0.1), and a fleet of simulated nodes. On the embedded log by default, on
 * Kafka when KAFKA_BROKERS is set. This process's own view, and each component's, is
 * snapshotted now and then (SHOAL_SNAPSHOT_EVERY_MS; 0: never).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { BeforeApplicationShutdown, INestApplication } from '@nestjs/common';
import { DEFAULT_CLUSTER_SPEC, LOG_LEVEL } from '@shoal/contracts';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { ComponentRunner, EventWriter, LiveView, ProcessMetrics, SnapshotSaver, checkpointSettingsFromEnv, checkpointerFor, controlPlaneCores, makeInstanceId, newJoinTokens, snapshotFor, viewSnapshotsIn } from '@shoal/runtime';
import { ClusterKeyring } from '@shoal/runtime';
import type { AuditCheckpointer } from '@shoal/runtime';
import type { ViewSnapshots } from '@shoal/runtime';
import { createApiApp } from '../../api/src/create-api-app';
import { DispatcherServer } from '../../dispatcher/src/dispatcher-server';
import { SimulatedFleet } from '../../agent/src/simulated-fleet';
import { DockerNode } from '../../agent/src/docker/docker-node';
import { DEFAULT_ENGINE } from '../../agent/src/docker/engine-client';
import { portToListenOn } from './listen-ports';
import { SHOAL_CONFIG } from './shoal.config';
import type { ShoalConfig } from './shoal.config';

export interface Started {
  readonly view: LiveView;
  readonly apiPort: number;
  readonly dispatcherPort: number;
}

@Injectable()
export class ShoalRunner implements BeforeApplicationShutdown {
  private readonly logger = new Logger('shoal');
  private view?: LiveView;
  private saver?: SnapshotSaver;
  private components: ComponentRunner[] = [];
  private checkpointer?: AuditCheckpointer;
  private dispatcher?: DispatcherServer;
  /** The API's and the dispatcher's one cluster keyring: `docker swarm unlock` unlocks both. */
  private keyring?: ClusterKeyring;
  private api?: INestApplication;
  private fleet?: SimulatedFleet;
  private dockerNode?: DockerNode;
  /** This process's metrics: every part registers on it, and the API answers /metrics from it. */
  private readonly metrics = new ProcessMetrics();

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(SHOAL_CONFIG) private readonly config: ShoalConfig,
  ) {}

  /** Replays (from the latest snapshot when there is one), makes sure the cluster exists, and starts every part. */
  async start(): Promise<Started> {
    // Before anything is read or written: a start that cannot listen leaves the log as it was.
    const say = (line: string): void => this.logger.warn(line);
    const chosen = this.config.chosenPorts ?? {};
    const dispatcherPortToUse = await portToListenOn({ name: 'SHOAL_DISPATCHER_PORT', port: this.config.dispatcherPort, chosen: chosen.dispatcher ?? true }, say);
    const apiPortToUse = await portToListenOn({ name: 'SHOAL_API_PORT', port: this.config.apiPort, chosen: chosen.api ?? true }, say);
    const own = this.snapshotsOf('shoal');
    const { snapshot, refused } = own ? await snapshotFor(this.log, own.store) : {};
    const view = new LiveView(this.log, snapshot ? { snapshot } : {});
    const notUsed = refused ?? view.snapshotRefused;
    if (notUsed) this.logger.warn(`not using snapshot: ${notUsed}`);
    await view.start();
    this.view = view;
    const keyring = await ClusterKeyring.open(this.log, this.config.dataDir);
    this.keyring = keyring;
    if (!view.state.cluster) await this.initializeCluster(view, keyring);
    const cluster = view.state.cluster!.id;
    await this.startComponents(cluster);

    const dispatcherSnapshots = this.snapshotsOf('dispatcher');
    this.dispatcher = new DispatcherServer(this.log, {
      port: dispatcherPortToUse,
      cluster,
      ...(dispatcherSnapshots ? { snapshots: dispatcherSnapshots } : {}),
      log: (line) => this.logger.debug(`dispatcher: ${line}`),
      metrics: this.metrics,
      secrets: () => keyring.vault(),
    });
    const { port: dispatcherPort } = await this.dispatcher.start();
    await this.dispatcher.runner?.untilActive();

    this.api = await createApiApp({
      log: this.log,
      dataDir: this.config.dataDir,
      port: apiPortToUse,
      cluster,
      joinAddr: `127.0.0.1:${dispatcherPort}`,
      metrics: this.metrics,
      keyring,
      ...(this.config.apiListen ? { listen: this.config.apiListen } : {}),
    });
    const apiPort = (this.api.getHttpServer().address() as { port: number }).port;

    if (this.config.executor === 'docker' || this.config.simNodes > 0) {
      if (!keyring.isLocked) await this.startOwnNodes(dispatcherPort, keyring.openJoinToken(view.state.cluster!.tokens.worker));
      else {
        // The worker token is sealed under the cluster key: this host's nodes join once `docker swarm unlock` opens it.
        this.logger.warn('the swarm is locked: this host\'s own nodes join once it is unlocked (docker swarm unlock)');
        void keyring
          .unlocked()
          .then(() => (this.keyring === keyring ? this.startOwnNodes(dispatcherPort, keyring.openJoinToken(view.state.cluster!.tokens.worker)) : undefined))
          .catch((error: unknown) => this.logger.warn(`this host's nodes did not start: ${error instanceof Error ? error.message : String(error)}`));
      }
    }
    await view.waitFor(await this.log.highWaterMark());
    if (own) {
      this.saver = new SnapshotSaver(own, () => view, (message) => this.logger.warn(message), snapshot && !view.snapshotRefused ? snapshot.offset : undefined);
      this.saver.start();
    }
    return { view, apiPort, dispatcherPort };
  }

  /** This host's own nodes: its engine's (executor docker), or its simulated fleet. */
  private async startOwnNodes(dispatcherPort: number, joinToken: string): Promise<void> {
    if (this.config.executor === 'docker') {
      // One node, this host, whose tasks are containers on the local engine; its id kept beside the log, so a restart adopts them.
      this.dockerNode = new DockerNode({
        dispatchers: [`127.0.0.1:${dispatcherPort}`],
        joinToken,
        engine: this.config.engine ?? DEFAULT_ENGINE,
        stateDir: join(this.config.dataDir, 'docker-node'),
        log: (line) => this.logger.log(`docker node: ${line}`),
        onError: (error) => this.logger.warn(`docker node: ${error.message}`),
      });
      await this.dockerNode.start();
    } else if (this.config.simNodes > 0) {
      this.fleet = new SimulatedFleet({
        dispatchers: [`127.0.0.1:${dispatcherPort}`],
        joinToken,
        nodes: this.config.simNodes,
        hostnamePrefix: 'sim-node-',
        // Their ids kept beside the log: a restart brings back the same nodes, not new ones.
        stateDir: join(this.config.dataDir, 'fleet'),
        onError: (error) => this.logger.warn(`simulated nodes: ${error.message}`),
      });
      await this.fleet.start();
    }
  }

  /** The control plane's cores (made as each component's own process makes its core), each with its own view and runner, as separate processes would run them. */
  private async startComponents(cluster: string): Promise<void> {
    for (const core of controlPlaneCores()) {
      const snapshots = this.snapshotsOf(core.component);
      const runner = new ComponentRunner(this.log, core, {
        cluster,
        instance: makeInstanceId(core.component),
        metrics: this.metrics,
        ...(snapshots ? { snapshots } : {}),
        onActivity: (activity) => {
          if (activity.kind === 'error' || activity.kind === 'lost') this.logger.warn(`${core.component}: ${JSON.stringify(activity)}`);
        },
      });
      await runner.start();
      this.components.push(runner);
      if (core.component === 'reaper') this.signCheckpoints(runner);
    }
    // Up means acting: every component owns its part before anything else starts.
    for (const runner of this.components) await runner.untilActive();
  }

  /** The reaper's owner signs the audit checkpoints, given SHOAL_AUDIT_SIGNING_KEY (docs/audit.md). */
  private signCheckpoints(reaper: ComponentRunner): void {
    const settings = checkpointSettingsFromEnv(process.env);
    if (!settings) return;
    this.checkpointer = checkpointerFor(this.log, reaper, settings, (message) => this.logger.warn(message));
    this.checkpointer.start();
    this.logger.log(`signing audit checkpoints with ${settings.key.fingerprint}`);
  }

  /** Where a part keeps its view's snapshots, as its own process would (none when snapshots are off). */
  private snapshotsOf(component: string): ViewSnapshots | undefined {
    return viewSnapshotsIn(this.config.dataDir, component, this.config.snapshotEveryMs);
  }

  /** The parts running in this process. */
  get running(): readonly string[] {
    return [...this.components.map((runner) => runner.component), ...(this.dispatcher ? ['dispatcher'] : []), ...(this.api ? ['api'] : [])];
  }

  /** Simulated nodes with a session up. */
  get simulatedNodes(): number {
    return this.fleet?.connected ?? 0;
  }

  private async initializeCluster(view: LiveView, keyring: ClusterKeyring): Promise<void> {
    const cluster = this.config.clusterId ?? `c${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const writer = new EventWriter(this.log, cluster, 'api', makeInstanceId('api'));
    const [verdict] = await writer.appendAndWait(view, [
      writer.propose('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keyring.keepJoinTokens(newJoinTokens(cluster)), logLevel: LOG_LEVEL }),
    ]);
    if (verdict?.status !== 'applied') throw new Error(`could not initialize the cluster: ${verdict?.reasons.join('; ')}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    // Outside in: the nodes leave, the API and the dispatcher stop taking requests, then the components stop.
    await this.fleet?.stop();
    this.fleet = undefined;
    await this.dockerNode?.stop();
    this.dockerNode = undefined;
    await this.api?.close();
    this.api = undefined;
    await this.dispatcher?.stop();
    this.dispatcher = undefined;
    await this.keyring?.close();
    this.keyring = undefined;
    await this.checkpointer?.stop();
    this.checkpointer = undefined;
    // Together: each gives its lease up (up to 10 s for a member to leave its group on a busy
    // broker), and one after another they could outlast a supervisor's stop timeout.
    await Promise.all(this.components.splice(0).map((runner) => runner.stop()));
    const view = this.view;
    if (!view) return;
    await view.stop();
    await this.saver?.flush();
    this.saver = undefined;
    this.view = undefined;
  }
}
