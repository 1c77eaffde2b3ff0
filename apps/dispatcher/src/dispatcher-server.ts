/**
 * The dispatcher, whole: a gRPC server for the agents (127.0.0.1 by default) and a
 * component runner over the dispatcher core. Only while the runner is the active one does
 * the server take sessions; losing ownership ends them all, so agents go to the new
 * active instance. Usable on its own (the `shoal run dispatcher` process) or in-process
 * (the all-in-one `npm start`).
 */
import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { TLSSocket } from 'node:tls';
import { Server, ServerCredentials, status } from '@grpc/grpc-js';
import { RULE_LEVELS, certificateOf } from '@shoal/contracts';
import type { NodeTlsInfo } from '@shoal/contracts';
import { SessionTable, ruleApplies } from '@shoal/domain';
import type { DispatcherCore } from '@shoal/domain';
import type { EventLog } from '@shoal/eventlog';
import { DISPATCHER_SERVICE, DISPATCHER_TLS_NAME, LOGS_SERVICE, NODE_CA_SERVICE, instanceWithAddress } from '@shoal/protocol';
import { ClusterRootCa, ComponentRunner, ProcessMetrics, componentCore, makeInstanceId, newObjectId } from '@shoal/runtime';
import type { RootCaState, RootKeyOpener, RunnerActivity, SecretVault, SigningCa, ViewSnapshots } from '@shoal/runtime';
import { AgentSession } from './agent-session';
import { ActiveProbe } from './active-probe';
import { ClusterTls } from './cluster-tls';
import { NodeCaService } from './node-ca-service';
import { AgentService } from './agent-service';
import { dispatcherAddresses, hostPort } from './dispatcher-address';
import { AgentCounters, registerDispatcherGauges } from './dispatcher-metrics';
import { LogBroker } from './log-broker';
import { StatusTraces } from './status-traces';

export interface DispatcherServerOptions {
  /** Where the gRPC server listens; default 127.0.0.1. */
  readonly host?: string;
  /** Its port; default 0, any free port. */
  readonly port?: number;
  /** The cluster to write for; default the one the log's ClusterInitialized names. */
  readonly cluster?: string;
  /** This instance's id on the log; default a fresh one. `@<advertised address>` is appended. */
  readonly instance?: string;
  /** The address agents are sent to when this instance is active; default host:port. */
  readonly advertise?: string;
  readonly now?: () => Date;
  /** Lines worth logging (ignored statuses, ownership changes). */
  readonly log?: (line: string) => void;
  /** Where the view is snapshotted, and how often. */
  readonly snapshots?: ViewSnapshots;
  /** How long a log subscription that does not follow waits on a silent node (LOG_NODE_TIMEOUT_MS). */
  readonly logNodeTimeoutMs?: number;
  /** The process's metrics, where the dispatcher registers its own and reports its runner's; default its own. */
  readonly metrics?: ProcessMetrics;
  /**
   * The vault that opens secrets for the nodes (opened as the dispatcher starts, again as
   * a secret is to be sent while it is not: a locked keyring until it is unlocked), owned
   * by whoever made it; without it, no secret is sent.
   */
  readonly secrets?: () => Promise<SecretVault>;
  /**
   * The cluster's root CA: with it the server speaks mutual TLS (its own certificate signed
   * by the CA), serves NodeCA, and knows each node by its certificate; without it, plain
   * gRPC and join tokens on every session.
   */
  readonly ca?: SigningCa & { readonly pem: string };
  /** Opens a root CA key the log keeps sealed (a rotation's root): the cluster keyring's. Without it, a rotated root cannot sign here. */
  readonly rootKeys?: RootKeyOpener;
}

const noRootKeys: RootKeyOpener = () => {
  throw new Error("this dispatcher has no cluster key to open a rotated root CA's key with");
};

/** How often the server looks at the cluster's root CA on its view (a rotation starting or ending) and at the nodes' certificates. */
const ROOT_WATCH_MS = 1_000;

/** Whether a node's TLS is what the cluster's root CA asks: its certificate of the issuer nodes should have, and the roots it trusts the ones it should. */
const tlsCurrent = (tls: NodeTlsInfo | undefined, root: RootCaState): boolean =>
  certificateOf(tls, root.issuer) && tls?.trustRoot === root.trustBundle;

/** What the server's certificate names: where it is bound and advertised, and loopback. */
const certificateHosts = (host: string, advertise: string | undefined): string[] => {
  const named = [DISPATCHER_TLS_NAME, host, advertise?.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1'), '127.0.0.1', 'localhost'];
  return [...new Set(named.filter((name): name is string => !!name && name !== '0.0.0.0' && name !== '::'))];
};

/**
 * Closes each connection that presents another CA's certificate as soon as its handshake is
 * done (ClusterTls.foreign), before any call reaches a method. Node's TLS server cannot refuse
 * it in the handshake itself without also refusing a joining node that has no certificate,
 * and grpc-js keeps the HTTP/2 servers it listens with to itself: they are reached here, and
 * a grpc-js whose insides changed stops the dispatcher at start rather than let such a
 * certificate through to the methods unnoticed.
 */
const closeForeignAtHandshake = (server: Server, tls: ClusterTls): void => {
  const listeners = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(listeners instanceof Map) || listeners.size === 0) {
    throw new Error('dispatcher: cannot reach the TLS listener of @grpc/grpc-js to close connections of another CA at their handshake (its insides changed)');
  }
  for (const listener of listeners.keys() as IterableIterator<EventEmitter>) {
    listener.prependListener('secureConnection', (socket: TLSSocket) => {
      if (tls.foreign(socket)) socket.destroy();
    });
  }
};

/** Status batches wait at most this long (SwarmKit: 100 ms). */
const STATUS_BATCH_MS = 100;

export class DispatcherServer {
  readonly sessions = new SessionTable();
  readonly core: DispatcherCore;
  /** What the agents sent since this instance started. */
  private readonly counters: AgentCounters;
  /** Its process's metrics (/metrics): its runner's view and ticks, its agents' sessions, heartbeats and statuses. */
  readonly metrics: ProcessMetrics;
  /** Whether the active dispatcher answers, while this one stands by. */
  private readonly probe = new ActiveProbe();
  private runnerValue?: ComponentRunner;
  private vault?: SecretVault;
  private vaultOpening?: Promise<void>;
  private service?: AgentService;
  private logs?: LogBroker;
  private server?: Server;
  private addressValue?: string;
  private tlsValue?: ClusterTls;
  private rootWatch?: NodeJS.Timeout;
  /** While active: where the dispatchers are, this one first (told to every agent). */
  private dispatchersValue: readonly string[] = [];
  private readonly now: () => Date;
  private readonly say: (line: string) => void;

  constructor(
    private readonly log: EventLog,
    private readonly options: DispatcherServerOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.say = options.log ?? (() => undefined);
    this.metrics = options.metrics ?? new ProcessMetrics();
    this.counters = new AgentCounters(this.metrics.registry);
    registerDispatcherGauges(this.metrics.registry, () => ({
      runner: this.runnerValue,
      sessions: this.sessions,
      heartbeatStreams: this.service?.heartbeatStreamCount ?? 0,
      logSubscriptions: this.logSubscriptions,
    }));
    this.core = componentCore('dispatcher', { sessions: this.sessions, log: this.say });
  }

  /** The runner, once started. */
  get runner(): ComponentRunner | undefined {
    return this.runnerValue;
  }

  /** The address agents are given for this instance, once started. */
  get address(): string | undefined {
    return this.addressValue;
  }

  /** While active, where the dispatchers are as agents are told: this one first, then its standbys. */
  get dispatchers(): readonly string[] {
    return this.dispatchersValue;
  }

  /** The server's mutual TLS, when the cluster has a root CA. */
  get tls(): ClusterTls | undefined {
    return this.tlsValue;
  }

  /** Log subscriptions open now. */
  get logSubscriptions(): number {
    return this.logs?.size ?? 0;
  }

  /** Listens, replays the log and runs: standby until this instance owns the partition. */
  async start(): Promise<{ port: number }> {
    if (this.server) throw new Error('the dispatcher is already started');
    this.openVault();
    const host = this.options.host ?? '127.0.0.1';
    const instance = this.options.instance ?? makeInstanceId('dispatcher');
    const tls = this.options.ca
      ? new ClusterTls(new ClusterRootCa(this.options.ca, this.options.rootKeys ?? noRootKeys), {
          instance,
          hosts: certificateHosts(host, this.options.advertise),
          now: this.now,
          cluster: () => this.runnerValue?.view.state.cluster,
        })
      : undefined;
    this.tlsValue = tls;
    if (tls) {
      this.rootWatch = setInterval(() => this.watchRoots(tls), ROOT_WATCH_MS);
      this.rootWatch.unref();
    }
    const logs = new LogBroker({
      active: () => {
        const runner = this.service?.activeRunner();
        if (runner === undefined) return { code: status.UNAVAILABLE, details: 'the dispatcher is starting' };
        return 'view' in runner ? { state: runner.view.state } : runner;
      },
      sessions: this.sessions,
      newId: randomUUID,
      log: this.say,
      ...(this.options.logNodeTimeoutMs !== undefined ? { nodeTimeoutMs: this.options.logNodeTimeoutMs } : {}),
      ...(tls ? { identify: (call) => tls.identify(call) } : {}),
    });
    this.logs = logs;
    const service = new AgentService({
      runner: () => this.runnerValue,
      core: this.core,
      sessions: this.sessions,
      address: () => this.addressValue,
      dispatchers: () => this.dispatchersValue,
      now: this.now,
      newNodeId: newObjectId,
      newSessionId: randomUUID,
      log: this.say,
      counters: this.counters,
      logs,
      unreachable: (address) => this.probe.unreachable(address),
      openSecret: (id, sealed) => this.openSecret(id, sealed),
      ...(tls ? { identify: (call) => tls.identify(call) } : {}),
    });
    this.service = service;
    const server = new Server();
    server.addService(DISPATCHER_SERVICE, service.implementation());
    server.addService(LOGS_SERVICE, logs.implementation());
    if (tls) {
      const ca = new NodeCaService({
        tls,
        state: () => this.runnerValue?.view.state,
        wasRemoved: (nodeId, state) => this.core.wasRemoved(nodeId, state),
        newNodeId: newObjectId,
        now: this.now,
        log: this.say,
      });
      server.addService(NODE_CA_SERVICE, ca.implementation());
    }
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(hostPort(host, this.options.port ?? 0), tls ? tls.serverCredentials() : ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(new Error(`dispatcher: cannot listen on ${hostPort(host, this.options.port ?? 0)}: ${error.message}`)) : resolve(bound),
      ),
    );
    if (tls) closeForeignAtHandshake(server, tls);
    this.server = server;
    this.addressValue = this.options.advertise ?? hostPort(host, port);
    const runner = new ComponentRunner(this.log, this.core, {
      instance: instanceWithAddress(instance, this.addressValue),
      ...(this.options.cluster ? { cluster: this.options.cluster } : {}),
      gapMs: 20,
      capMs: STATUS_BATCH_MS,
      now: this.now,
      metrics: this.metrics,
      ...(this.options.snapshots ? { snapshots: this.options.snapshots } : {}),
      onActivity: (activity) => this.onActivity(activity),
      traceCauses: new StatusTraces(() => this.runnerValue?.state === 'active'),
    });
    this.runnerValue = runner;
    try {
      await runner.start();
    } catch (error) {
      server.forceShutdown();
      this.server = undefined;
      throw error;
    }
    return { port };
  }

  /**
   * Follows the cluster's root CA on the view (ClusterTls.refresh), and asks each node whose
   * certificate or trusted roots are not yet those the cluster's root CA asks for to renew
   * its certificate, as SwarmKit's root rotation reconciler marks them: during a rotation for
   * a certificate of the new root (and both roots to trust), after it for the new root alone.
   * From log level 6, where nodes' TLS is kept.
   */
  private watchRoots(tls: ClusterTls): void {
    try {
      if (tls.refresh()) this.say(`the cluster's root CA is ${tls.current().rotating ? 'rotating' : 'now'} ${tls.current().digest}`);
    } catch (error) {
      this.say(`cannot serve the cluster's new root CA yet: ${(error as Error).message}`);
    }
    const runner = this.runnerValue;
    if (runner?.state !== 'active' || !ruleApplies(runner.view.state, RULE_LEVELS.nodeTlsInfo)) return;
    const state = runner.view.state;
    const root = tls.current();
    const now = this.now().getTime();
    for (const session of this.sessions.all()) {
      if (session.registration !== 'open' || !(session.link instanceof AgentSession)) continue;
      if (!tlsCurrent(state.nodes.get(session.nodeId)?.description.tls, root)) session.link.askToRenew(now);
    }
  }

  /** Opens the vault in the background; a failure is said, and the next secret to send tries again. */
  private openVault(): void {
    const open = this.options.secrets;
    if (!open || this.vault || this.vaultOpening) return;
    this.vaultOpening = open().then(
      (vault) => {
        this.vault = vault;
        this.vaultOpening = undefined;
      },
      (error: unknown) => {
        this.vaultOpening = undefined;
        this.say(`dispatcher: cannot open the secrets' data keys, so no secret is sent to nodes: ${(error as Error).message}`);
      },
    );
  }

  /** A secret's bytes as a node is sent them, or undefined (said) when they cannot be opened now. */
  private openSecret(id: string, sealed: string): Buffer | undefined {
    if (!this.vault) {
      this.openVault();
      this.say(`dispatcher: secret ${id} is not sent: ${this.options.secrets ? 'its data keys are not open yet' : 'this dispatcher has no secret vault'}`);
      return undefined;
    }
    try {
      return this.vault.openNow(id, sealed);
    } catch (error) {
      this.say(`dispatcher: secret ${id} is not sent: ${(error as Error).message}`);
      return undefined;
    }
  }

  async stop(): Promise<void> {
    await this.vaultOpening;
    this.vault = undefined;
    const server = this.server;
    this.server = undefined;
    this.endAgents('the dispatcher is stopping');
    this.probe.close();
    clearInterval(this.rootWatch);
    this.tlsValue?.stop();
    if (server) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 2_000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const runner = this.runnerValue;
    if (!runner) return;
    const active = runner.state === 'active';
    const stopping = runner.stop();
    // A standby's runner is waiting for the lease, which it gives up only when its log
    // closes: the log's owner closes it after this, so do not wait for that here.
    if (active) await stopping;
    else void stopping.catch((error: unknown) => this.say(`stopping: ${String(error)}`));
  }

  /** Stops serving agents: every log subscription and session ends, and every Heartbeats stream is answered, for `reason`. */
  private endAgents(reason: string): void {
    this.logs?.endAll(reason);
    this.sessions.clear(reason);
    this.service?.endHeartbeats(reason);
  }

  private onActivity(activity: RunnerActivity): void {
    switch (activity.kind) {
      case 'owner':
        this.probe.close();
        this.say(`active under term ${activity.term}: serving agents on ${this.addressValue}`);
        break;
      case 'lost':
        this.say(`lost ownership (${activity.reason}): ending every session`);
        this.dispatchersValue = [];
        this.endAgents('this dispatcher is no longer the active one');
        break;
      case 'members': {
        if (this.addressValue === undefined) break;
        const dispatchers = dispatcherAddresses(this.addressValue, activity.members);
        if (dispatchers.join(',') === this.dispatchersValue.join(',')) break;
        this.dispatchersValue = dispatchers;
        this.say(`dispatchers agents are told of: ${dispatchers.join(', ')}`);
        this.service?.dispatchersChanged();
        break;
      }
      case 'error':
        this.say(activity.message);
        break;
      case 'restored':
        this.say(`view restored from the snapshot at offset ${activity.offset}`);
        break;
      case 'not restored':
        this.say(`not using a snapshot: ${activity.reason}`);
        break;
      case 'snapshot saved':
        this.say(`snapshot saved at offset ${activity.offset} in ${activity.ms} ms`);
        break;
      case 'appended':
        break;
      default: {
        const _exhaustive: never = activity;
        return _exhaustive;
      }
    }
  }
}
