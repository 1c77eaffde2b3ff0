/**
 * `shoal agent`: a node agent on this host, or a simulated fleet.
 *   shoal agent --join-token T --dispatcher HOST:PORT [--hostname H] [--label k=v]…
 *               [--state-dir DIR]
 *     this host as one node; tasks run as real processes (the exec executor); with
 *     --state-dir it keeps its node id there and joins as the same node next time, keeps
 *     the dispatchers' addresses its sessions listed (tried next time after --dispatcher's),
 *     and records its task processes there so that, restarted after a crash, it first stops
 *     those the crashed agent left running; each task's root (its configs) is there too,
 *     in tasks/<task id>, else under the system's temp dir; and each task's output, in
 *     logs/<task id> besides memory, so that restarted (killed or stopped) it still has
 *     what the node's tasks wrote (else the output is in memory only)
 *   shoal agent --executor docker [--engine unix:///var/run/docker.sock] --join-token T --dispatcher HOST:PORT
 *               [--hostname H] [--label k=v]… [--state-dir DIR]
 *     this host as one node whose tasks are containers on its Docker engine (the engine also
 *     from SHOAL_ENGINE); the node is described by the engine; with --state-dir a restarted
 *     agent is the same node and adopts its containers
 *   shoal agent --simulate N --join-token T --dispatcher HOST:PORT [--cpus C] [--memory 8GiB]
 *               [--label k=v]… [--label-cycle zone=a,b,c]… [--hostname-prefix sim-node-] [--state-dir DIR]
 *     N simulated nodes in this one process, each its own session
 * --dispatcher takes one HOST:PORT or several separated by commas: the agent moves on to
 * the next when the one it uses is gone (a standby sends it to the active one), and to
 * those the active one lists in its session. The join
 * token and dispatchers may also come from SHOAL_JOIN_TOKEN and SHOAL_DISPATCHER.
 * --tls (or SHOAL_DISPATCHER_TLS): the cluster has a root CA (its dispatchers run with
 * SHOAL_CA_DIR): the node pins the CA by the join token's digest, takes a certificate, and
 * speaks mutual TLS from then on; with --state-dir it keeps its key and certificate there
 * and is the same node after a restart (node-credentials.ts). Not for simulated fleets.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { shoalSettings } from '@shoal/config';
import { isDispatcherAddress } from '@shoal/protocol';
import { installProcessLogger, shoalLogger } from '@shoal/runtime';
import { AgentMetrics, agentMetricsAddress } from './agent-metrics';
import { AgentSession } from './agent-session';
import { parseByteSize } from './byte-size';
import { dispatcherKeeper, keptDispatchers } from './kept-dispatchers';
import { DispatcherChannels } from './dispatcher-channels';
import { NodeCredentials } from './node-credentials';
import { DockerExecutor } from './docker/docker-executor';
import { DEFAULT_ENGINE, EngineClient, parseEngineAddress } from './docker/engine-client';
import { ExecExecutor } from './exec-executor';
import type { Executor } from './executor';
import { parseLabel } from './node-description';
import { SimulatedFleet } from './simulated-fleet';
import type { FleetLabels } from './simulated-fleet';
import { TaskLogFiles } from './task-log-file';
import { TaskProcessRecord } from './task-processes';
import { TaskRoots } from './task-root';
import { TimerWheel } from './timers';

export interface AgentCommandOptions {
  joinToken?: string;
  dispatcher?: string[];
  hostname?: string;
  label: string[];
  simulate?: number;
  cpus?: number;
  memory?: number;
  labelCycle: string[];
  hostnamePrefix?: string;
  stateDir?: string;
  executor?: 'exec' | 'docker';
  engine?: string;
  publishAddress?: string;
  tls?: boolean;
}

const NODE_ID_FILE = 'node-id';

/** The node id an earlier run kept in the state directory, if any. */
const keptNodeId = (stateDir: string | undefined): string | undefined => {
  if (!stateDir) return undefined;
  try {
    return readFileSync(join(stateDir, NODE_ID_FILE), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
};

const keepNodeId = (stateDir: string | undefined, nodeId: string | undefined): void => {
  if (!stateDir || !nodeId) return;
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(join(stateDir, NODE_ID_FILE), `${nodeId}\n`);
};

const argument = <T>(parse: (value: string) => T) => (value: string): T => {
  try {
    return parse(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
};

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** An engine address as given, once it reads as one. */
const engineAddress = (value: string): string => {
  parseEngineAddress(value);
  return value.trim();
};

const nodeCount = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new Error(`expected a number of nodes (1 or more), e.g. --simulate 100; got "${value}"`);
  return Number(value);
};

const cpuCount = (value: string): number => {
  const cpus = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(cpus > 0)) throw new Error(`expected a number of CPUs, e.g. --cpus 4 or --cpus 0.5; got "${value}"`);
  return cpus;
};

/** One host:port, or several separated by commas (the dispatchers to try in turn); an IPv6 host in brackets. */
const hostPorts = (value: string): string[] => {
  const list = value.split(',').map((part) => part.trim());
  for (const part of list) {
    if (!isDispatcherAddress(part)) {
      throw new Error(`expected host:port, or several separated by commas, e.g. 127.0.0.1:2377,10.0.0.2:2377 (an IPv6 host in brackets: [::1]:2377); got "${part}"`);
    }
  }
  return list;
};

/** --label and --label-cycle as one set of fleet labels (a cycle's values are dealt out across nodes). */
export const fleetLabels = (labels: readonly string[], cycles: readonly string[]): FleetLabels => {
  const result: Record<string, string | readonly string[]> = {};
  for (const label of labels) {
    const [key, value] = parseLabel(label);
    result[key] = value;
  }
  for (const cycle of cycles) {
    const [key, values] = parseLabel(cycle);
    const list = values.split(',').map((value) => value.trim());
    if (list.some((value) => value === '')) throw new Error(`--label-cycle is key=v1,v2,…, e.g. zone=a,b,c; got "${cycle}"`);
    result[key] = list;
  }
  return result;
};

const required = (value: string | undefined, flag: string, variable: string): string => {
  if (value === undefined || value.trim() === '') throw new Error(`${flag} is required (or set ${variable})`);
  return value.trim();
};

/** SHOAL_DISPATCHER's dispatchers, a bad one refused naming the variable. */
const dispatchersFromEnv = (value: string): string[] => {
  try {
    return hostPorts(value);
  } catch (error) {
    throw new Error(`SHOAL_DISPATCHER: ${(error as Error).message}`);
  }
};

/** A line of the agent's, through the process's logger (installed when the command runs). */
const say = (line: string): void => shoalLogger().info(line);

/** Serves the agent's /metrics, /healthz and /readyz when SHOAL_HEALTH_PORT asks for them; the returned function stops serving. */
const serveMetrics = async (metrics: AgentMetrics): Promise<() => Promise<void>> => {
  const address = agentMetricsAddress(process.env);
  if (!address) return async () => undefined;
  const server = await metrics.serve(address.host, address.port);
  const url = `http://${address.host}:${(server.address() as { port: number }).port}`;
  shoalLogger().info({ url }, `agent: metrics on ${url}/metrics, health on /healthz, readiness on /readyz`);
  return () => new Promise((resolve) => server.close(() => resolve()));
};

/** Resolves when SIGINT or SIGTERM arrives. */
const untilSignalled = (): Promise<NodeJS.Signals> =>
  new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
  });

/** What runs this host's tasks, with what keeps their output besides memory and what it leaves behind when the agent stops. */
interface HostExecutor {
  readonly executor: Executor;
  readonly logStore?: TaskLogFiles;
  close(): Promise<void>;
}

/** The exec executor: the task processes a killed agent left are stopped first, their roots removed, each task's output kept in the state dir. */
const execExecutor = async (options: AgentCommandOptions, timers: TimerWheel, labels: Record<string, string>): Promise<HostExecutor> => {
  const tasksDir = options.stateDir ? join(options.stateDir, 'tasks') : undefined;
  const processes = tasksDir ? new TaskProcessRecord(tasksDir) : undefined;
  for (const leftover of (await processes?.stopLeftovers()) ?? []) {
    if (leftover.outcome === 'gone') continue;
    say(
      leftover.outcome === 'unverifiable'
        ? `task ${leftover.taskId}: a previous agent's process ${leftover.pid} may still run (this system has no /proc to tell it from another): stop it yourself`
        : `task ${leftover.taskId}: ${leftover.outcome} process ${leftover.pid}, which the previous agent left running`,
    );
  }
  // Their tasks ended with the agent that made them (and its processes are stopped now).
  const roots = new TaskRoots(tasksDir);
  await roots.removeLeftovers();
  // Each task's output, besides memory: what an earlier agent kept is read now, and goes unless the node still has its task.
  const logStore = options.stateDir
    ? await TaskLogFiles.open(join(options.stateDir, 'logs'), { say }).catch((error: unknown) => {
        say(`task output is kept in memory only: ${join(options.stateDir!, 'logs')} is not usable (${error instanceof Error ? error.message : String(error)})`);
        return undefined;
      })
    : undefined;
  const executor = new ExecExecutor({ hostname: options.hostname, labels, output: 'inherit', timers, processes, roots });
  return { executor, logStore, close: () => executor.close() };
};
/**
 * The docker executor on the engine at --engine: the node described by the engine; a
 * restarted agent (same node id: --state-dir) adopts the containers its node left, and the
 * engine keeps each task's output (no log files of the agent's own).
 */
const dockerExecutor = async (options: AgentCommandOptions, nodeId: () => string | undefined, labels: Record<string, string>): Promise<HostExecutor> => {
  const engine = new EngineClient(options.engine ?? shoalSettings().SHOAL_ENGINE);
  const executor = await DockerExecutor.connect({ engine, nodeId, hostname: options.hostname, labels, publishAddress: options.publishAddress, log: say });
  return { executor, close: async () => executor.close() };
};

const runHostAgent = async (options: AgentCommandOptions, joinToken: string, dispatchers: readonly string[]): Promise<void> => {
  const timers = new TimerWheel(25);
  // Under mutual TLS the node is who its certificate says, and sessions carry no token.
  const identity = options.tls ? await NodeCredentials.join(dispatchers, joinToken, { stateDir: options.stateDir, log: say }) : undefined;
  const channels = identity ? new DispatcherChannels(undefined, () => identity.channelCredentials()) : new DispatcherChannels();
  const labels = Object.fromEntries(options.label.map(parseLabel));
  const joinedAs: { session?: AgentSession } = {};
  const nodeId = identity?.nodeId ?? keptNodeId(options.stateDir);
  const host =
    options.executor === 'docker' ? await dockerExecutor(options, () => joinedAs.session?.nodeId ?? nodeId, labels) : await execExecutor(options, timers, labels);
  const { executor, logStore } = host;
  let failed: (error: Error) => void = () => undefined;
  const failure = new Promise<Error>((resolve) => (failed = resolve));
  let connected = 0;
  const metrics = new AgentMetrics(() => ({ sessions: 1, connected }));
  const stopServing = await serveMetrics(metrics);
  const session = new AgentSession({
    dispatchers,
    knownDispatchers: keptDispatchers(options.stateDir),
    onDispatchers: dispatcherKeeper(options.stateDir, say),
    joinToken: identity ? '' : joinToken,
    executor,
    logStore,
    channels,
    timers,
    nodeId,
    log: say,
    onFailure: (error) => failed(error),
    onConnectionChange: (up) => (connected = up ? 1 : 0),
    onHeartbeat: () => metrics.heartbeat(),
    ...(identity ? { trustRoot: () => identity.trustRoot, onRenewCertificate: () => identity.renewNow(joinedAs.session?.dispatcher ?? dispatchers[0]!) } : {}),
  });
  joinedAs.session = session;
  // A renewed certificate is used from the next connection: the session reconnects at once, on it.
  identity?.onRenewed(() => {
    channels.close();
    session.reconnect();
  });
  identity?.scheduleRenewal(() => session.dispatcher);
  const signalled = untilSignalled();
  const joined = await Promise.race([session.start().then(() => 'joined' as const), signalled]).catch(async (error: unknown) => {
    await session.stop();
    channels.close();
    throw error;
  });
  if (joined !== 'joined') {
    identity?.stop();
    say(`${joined} before the node joined: stopping`);
    await session.stop();
    channels.close();
    await host.close();
    await logStore?.flush();
    await stopServing();
    return;
  }
  keepNodeId(options.stateDir, session.nodeId);
  const description = executor.describe();
  say(`node ${session.nodeId} (${description.hostname}, ${description.nanoCpus / 1e9} CPUs, ${Math.round(description.memoryBytes / 2 ** 20)} MiB) joined the dispatcher at ${session.dispatcher}`);
  const ended = await Promise.race([signalled, failure]);
  identity?.stop();
  if (ended instanceof Error) {
    await session.stop({ stopTasks: true });
    channels.close();
    await host.close();
    await logStore?.flush();
    await stopServing();
    throw ended;
  }
  say(`${ended}: stopping this node's tasks`);
  await session.stop({ stopTasks: true });
  channels.close();
  await host.close();
  // What the tasks wrote last is in their files before the agent goes.
  await logStore?.flush();
  await stopServing();
};

const runFleet = async (options: AgentCommandOptions, nodes: number, joinToken: string, dispatchers: readonly string[]): Promise<void> => {
  let failed: (error: Error) => void = () => undefined;
  const failure = new Promise<Error>((resolve) => (failed = resolve));
  const fleet = new SimulatedFleet({
    dispatchers,
    joinToken,
    nodes,
    cpus: options.cpus,
    memoryBytes: options.memory,
    labels: fleetLabels(options.label, options.labelCycle),
    hostnamePrefix: options.hostnamePrefix,
    stateDir: options.stateDir,
    log: say,
    onError: (error) => failed(error),
    onHeartbeat: () => metrics.heartbeat(),
  });
  const metrics = new AgentMetrics(() => ({ sessions: nodes, connected: fleet.connected }));
  const stopServing = await serveMetrics(metrics);
  say(`starting ${nodes} simulated node${nodes === 1 ? '' : 's'} against the dispatcher at ${dispatchers.join(' or ')}`);
  const signalled = untilSignalled();
  const started = fleet.start();
  const ended = await Promise.race([started.then(() => Promise.race([signalled, failure])), signalled]);
  await fleet.stop();
  await stopServing();
  if (ended instanceof Error) throw ended;
  say(`${ended}: the fleet left`);
};

/** The `agent` command, for `shoal agent` and for the agent's own entry point. */
export const agentCommand = (name = 'agent'): Command =>
  new Command(name)
    .description('run a node agent on this host (tasks as real processes), or --simulate N nodes in one process')
    .option('--join-token <token>', 'the cluster join token (SWMTKN-1-…; default $SHOAL_JOIN_TOKEN)')
    .option('--dispatcher <host:port,…>', 'the dispatchers to join through, tried in turn when one is gone (default $SHOAL_DISPATCHER)', argument(hostPorts))
    .option('--hostname <name>', "this node's name (default: the host's)")
    .option('--label <key=value>', 'an engine label for the node(s); repeatable', collect, [])
    .option('--state-dir <dir>', 'keep the node id(s) here, to join as the same node(s) after a restart, and the dispatchers the sessions listed, to try should --dispatcher be gone (and, on this host, the task processes, to stop those a crashed agent left, and the output of each task, kept after a restart while the node has the task)')
    .addOption(new Option('--executor <kind>', 'what runs this host\'s tasks: exec (host processes) or docker (containers on the engine)').choices(['exec', 'docker']))
    .option('--engine <address>', `the Docker engine, for --executor docker: unix:///path/to/docker.sock or tcp://host:port (default $SHOAL_ENGINE, else ${DEFAULT_ENGINE})`, argument(engineAddress))
    .option('--publish-address <ip>', 'for --executor docker: the host address published ports bind to (default: every address, as Docker)')
    .addOption(new Option('--simulate <n>', 'run N simulated nodes in this process instead of this host').argParser(argument(nodeCount)))
    .option('--cpus <n>', 'CPUs per simulated node (default 4)', argument(cpuCount))
    .option('--memory <size>', 'memory per simulated node, e.g. 8GiB or 512MiB (default 8GiB)', argument(parseByteSize))
    .option('--label-cycle <key=v1,v2,…>', 'a label whose values are dealt out across simulated nodes in turn, e.g. zone=a,b,c; repeatable', collect, [])
    .option('--hostname-prefix <prefix>', 'simulated node i is named <prefix><i> (default sim-node-)')
    .option('--tls', "join over mutual TLS: pin the cluster's root CA by the join token's digest, take a node certificate (kept in --state-dir) and use it (default $SHOAL_DISPATCHER_TLS)")
    .showHelpAfterError()
    .action(async (options: AgentCommandOptions) => {
      installProcessLogger('agent');
      const settings = shoalSettings();
      const joinToken = required(options.joinToken ?? settings.SHOAL_JOIN_TOKEN, '--join-token', 'SHOAL_JOIN_TOKEN');
      const dispatchers = options.dispatcher ?? dispatchersFromEnv(required(settings.SHOAL_DISPATCHER, '--dispatcher', 'SHOAL_DISPATCHER'));
      options.tls = options.tls ?? settings.SHOAL_DISPATCHER_TLS;
      if (options.simulate === undefined) {
        for (const [flag, value] of [['--cpus', options.cpus], ['--memory', options.memory], ['--hostname-prefix', options.hostnamePrefix]] as const)
          if (value !== undefined) throw new Error(`${flag} is for simulated nodes: add --simulate N`);
        if (options.labelCycle.length > 0) throw new Error('--label-cycle is for simulated nodes: add --simulate N');
        for (const [flag, value] of [['--engine', options.engine], ['--publish-address', options.publishAddress]] as const)
          if (value !== undefined && options.executor !== 'docker') throw new Error(`${flag} is for the docker executor: add --executor docker`);
        await runHostAgent(options, joinToken, dispatchers);
      } else {
        if (options.hostname !== undefined) throw new Error('--hostname names this host; simulated nodes take --hostname-prefix');
        if (options.executor !== undefined || options.engine !== undefined) throw new Error('simulated nodes run no executor of this host: drop --executor and --engine, or --simulate');
        if (options.tls) throw new Error('--tls is for one node on this host: a simulated fleet joins over plain gRPC (drop --tls or SHOAL_DISPATCHER_TLS, or --simulate)');
        await runFleet(options, options.simulate, joinToken, dispatchers);
      }
    });
