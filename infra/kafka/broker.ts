/**
 * A real Kafka broker (KRaft, broker + controller in one JVM) on 127.0.0.1, from the
 * jars infra/kafka/fetch.sh caches: for tests and local runs on machines with no Docker.
 * Free ports, formatted storage, readiness by asking the broker, logs to files, clean stop.
 *
 * Every file of one broker lives in its data dir: server.properties, log4j.properties,
 * broker.log (the broker's own log, unless options.logFile puts it elsewhere), broker.out
 * (the JVM's stdout/stderr), broker.json ({pid, brokers, ...}) and data/ (the Kafka log dirs).
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';

const HERE = __dirname;

/** The Kafka version infra/kafka/pom.xml pins. */
export const KAFKA_VERSION: string = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(join(HERE, 'pom.xml'), 'utf8'))?.[1] ?? 'unknown';

const JAVA_MISSING = 'Java 17 not found on PATH: install openjdk-17-jre-headless (apt-get install openjdk-17-jre-headless)';

export interface BrokerOptions {
  /** Where storage, config and logs go (removed again by stop()); a fresh folder under os.tmpdir() by default. */
  readonly dataDir?: string;
  /**
   * The broker's own (log4j) log; `<dataDir>/broker.log` by default. A file outside the data
   * dir outlives stop(), for looking into a run afterwards (it is appended to, never truncated).
   */
  readonly logFile?: string;
  /** How long to wait for the broker to answer, per attempt (default 60 s; one retry after a timeout). */
  readonly startTimeoutMs?: number;
  /**
   * Leave the JVM running when this process exits (for `npm run kafka:start`). Otherwise a
   * small watchdog stops the JVM and removes its data dir should this process die without stop().
   */
  readonly detached?: boolean;
  /**
   * The ports to listen on, the broker's and the controller's: those of a broker that ran in
   * this data dir before (see restart()), so its clients find it again. Free ones by default.
   */
  readonly ports?: BrokerPorts;
  /** One node of a KRaft cluster of several (libs/testing/src/broker/kafka-cluster.ts); a cluster of one by default. */
  readonly node?: KraftNode;
  /** More `key=value` lines for server.properties, after the defaults (a key set here wins): another listener, its TLS and SASL. */
  readonly serverProperties?: readonly string[];
}

/** A node of a cluster of combined broker + controller nodes. */
export interface KraftNode {
  readonly id: number;
  /** controller.quorum.voters, the same on every node: `1@127.0.0.1:<controller port>,2@…`. */
  readonly voters: string;
  /** The cluster id every node's storage is formatted with. */
  readonly clusterId: string;
  /** Brokers in the cluster: the internal topics get min(3, brokers) replicas, min.insync.replicas min(2, brokers). */
  readonly brokers: number;
  /** The loopback address both listeners bind and advertise (default 127.0.0.1; 127.0.0.x for a node of its own address). */
  readonly host?: string;
  /** The network namespace the JVM runs in (`ip netns exec`), one the caller made with `host` in it. */
  readonly netns?: string;
}

export interface BrokerPorts {
  readonly broker: number;
  readonly controller: number;
}

/** What `<dataDir>/broker.json` holds. */
export interface BrokerInfo {
  readonly pid: number;
  readonly brokers: string[];
  readonly dataDir: string;
  readonly logFile: string;
  readonly version: string;
}

const listen = (): Promise<Server> =>
  new Promise((resolveServer, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveServer(server));
  });

/** `count` distinct ports nobody listens on right now, on 127.0.0.1. */
export const freePorts = async (count: number): Promise<number[]> => {
  // Held open together, so the kernel cannot hand out the same port twice.
  const servers = await Promise.all(Array.from({ length: count }, listen));
  const ports = servers.map((server) => {
    const address = server.address();
    return typeof address === 'object' && address ? address.port : 0;
  });
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  return ports;
};

/** Does `java -version` run here (on this process's PATH)? */
export const javaRuns = (): boolean => {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8', env: process.env, timeout: 30_000 });
  return !result.error && result.status === 0;
};

/** Throws a clear error naming Java when no `java` runs here. */
export const requireJava = (): void => {
  if (!javaRuns()) throw new Error(`cannot start the Kafka broker: ${JAVA_MISSING}`);
};

/** The jar folder, fetching the jars with Maven if needed; a clear error naming Java or Maven otherwise. */
export const kafkaLib = (): string => {
  const result = spawnSync('bash', [join(HERE, 'fetch.sh')], { encoding: 'utf8', timeout: 10 * 60_000, env: process.env });
  if (result.status !== 0) {
    const output = [result.stderr, result.stdout, result.error?.message].filter(Boolean).join('\n').trim();
    throw new Error(`cannot prepare the Kafka ${KAFKA_VERSION} jars (infra/kafka/fetch.sh exited ${String(result.status)}):\n${output}`);
  }
  const lib = result.stdout.trim().split('\n').pop() ?? '';
  if (!existsSync(lib)) throw new Error(`infra/kafka/fetch.sh printed no jar folder:\n${result.stdout}${result.stderr}`);
  return lib;
};

/**
 * A one-node KRaft broker's settings; clients reach it at 127.0.0.1:port. `listenHost` is where
 * its client listener binds: 127.0.0.1, or 0.0.0.0 inside a container whose port is published
 * on the host's loopback.
 */
export const serverProperties = (port: number, controller: number, logDirs: string, listenHost = '127.0.0.1', node?: KraftNode): string =>
  [
    'process.roles=broker,controller',
    `node.id=${node?.id ?? 1}`,
    `controller.quorum.voters=${node?.voters ?? `1@127.0.0.1:${controller}`}`,
    `listeners=PLAINTEXT://${node?.host ?? listenHost}:${port},CONTROLLER://${node?.host ?? '127.0.0.1'}:${controller}`,
    `advertised.listeners=PLAINTEXT://${node?.host ?? '127.0.0.1'}:${port}`,
    'inter.broker.listener.name=PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    `log.dirs=${logDirs}`,
    'auto.create.topics.enable=false',
    'offsets.topic.num.partitions=1',
    'group.initial.rebalance.delay.ms=0',
    // Shoal's lease timeout (SHOAL_LEASE_TIMEOUT_MS, 2 s by default) is a group session timeout: Kafka's 6 s minimum would refuse it.
    'group.min.session.timeout.ms=1000',
    'num.partitions=1',
    'log.retention.ms=-1',
    ...replication(node?.brokers ?? 1),
    '',
  ].join('\n');

/** The replication settings of a cluster of `brokers`: what Shoal's start-up check requires of the topics it uses. */
const replication = (brokers: number): string[] => {
  const replicas = Math.min(3, brokers);
  const insync = Math.min(2, brokers);
  return [
    `offsets.topic.replication.factor=${replicas}`,
    `transaction.state.log.replication.factor=${replicas}`,
    `transaction.state.log.min.isr=${insync}`,
    ...(brokers > 1
      ? [`default.replication.factor=${replicas}`, `min.insync.replicas=${insync}`, 'unclean.leader.election.enable=false', 'replica.lag.time.max.ms=10000']
      : []),
  ];
};

/** Broker logging: INFO to `file`, the chatty loggers at WARN. */
export const log4jProperties = (file: string): string =>
  [
    'log4j.rootLogger=INFO, file',
    'log4j.appender.file=org.apache.log4j.FileAppender',
    `log4j.appender.file.File=${file}`,
    'log4j.appender.file.Append=true',
    'log4j.appender.file.layout=org.apache.log4j.PatternLayout',
    'log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n',
    // Lifecycle (kafka.server, kafka.Kafka) stays at INFO; the chatty parts are quieted.
    'log4j.logger.kafka=INFO',
    'log4j.logger.org.apache.kafka=WARN',
    'log4j.logger.org.apache.kafka.server=INFO',
    'log4j.logger.kafka.request.logger=WARN',
    'log4j.logger.kafka.network.RequestChannel$=WARN',
    'log4j.logger.kafka.log=WARN',
    'log4j.logger.kafka.coordinator=WARN',
    'log4j.logger.kafka.controller=WARN',
    'log4j.logger.state.change.logger=WARN',
    'log4j.logger.kafka.server.DelayedOperationPurgatory=WARN',
    'log4j.logger.kafka.server.ClientQuotaManager=WARN',
    'log4j.logger.kafka.server.NodeToControllerRequestThread=WARN',
    'log4j.logger.kafka.utils.Log4jControllerRegistration$=WARN',
    // The full config dump (twice: format, then start); server.properties holds what was set.
    'log4j.logger.kafka.server.KafkaConfig=WARN',
    // Start/stop chatter of timer threads (a `$` inner class is no child of its outer class's logger).
    'log4j.logger.kafka.server.DelayedOperationPurgatory$ExpiredOperationReaper=WARN',
    'log4j.logger.kafka.server.ClientQuotaManager$ThrottledChannelReaper=WARN',
    'log4j.logger.kafka.raft.TimingWheelExpirationService$ExpiredOperationReaper=WARN',
    'log4j.logger.org.apache.kafka.server.util.timer.SystemTimerReaper$Reaper=WARN',
    'log4j.logger.org.apache.zookeeper=WARN',
    '',
  ].join('\n');

const tail = (file: string, lines = 30): string => {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n') || '(empty)';
  } catch {
    return '(none)';
  }
};

/** The last ERROR/FATAL lines of a log4j log (and the exception lines after them). */
const errorLines = (file: string, lines = 15): string => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return '(none)';
  }
  const found: string[] = [];
  let inError = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('[')) inError = / (ERROR|FATAL) /.test(line);
    if (inError) found.push(line);
  }
  return found.slice(-lines).join('\n') || '(none)';
};

/**
 * What `StorageTool random-uuid` prints, without that JVM start: 16 random bytes, base64url.
 * Like Kafka's Uuid.randomUuid, never one starting with '-' (the tool would read it as a flag).
 */
export const randomClusterId = (): string => {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
};

/** The cluster id of storage formatted before in `logDir`, if any. */
const formattedClusterId = (logDir: string): string | undefined => {
  try {
    return /^cluster\.id=(.+)$/m.exec(readFileSync(join(logDir, 'meta.properties'), 'utf8'))?.[1]?.trim();
  } catch {
    return undefined;
  }
};

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** A start that may well succeed on a second try (a timeout, or a port taken in between). */
class RetryableStart extends Error {}

export class LocalKafkaBroker {
  readonly version = KAFKA_VERSION;
  private exited = false;
  private exitStatus = '';
  private stopping: Promise<void> | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly watchdog: ChildProcess | undefined,
    /** `127.0.0.1:<port>`: the bootstrap servers for kafkajs. */
    readonly brokers: string[],
    readonly dataDir: string,
    /** The broker's log4j log. */
    readonly logFile: string,
    /** The ports it listens on. */
    readonly ports: BrokerPorts,
    private readonly startTimeoutMs: number | undefined,
    /** Its place in a cluster of several, if it has one. */
    readonly node?: KraftNode,
    private readonly extraProperties?: readonly string[],
  ) {
    child.once('exit', (code, signal) => {
      this.exited = true;
      this.exitStatus = signal ? `signal ${signal}` : `exit code ${String(code)}`;
      this.watchdog?.kill('SIGKILL');
    });
  }

  /** The JVM's pid. */
  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** The JVM's own stdout and stderr. */
  get outFile(): string {
    return join(this.dataDir, 'broker.out');
  }

  /**
   * Starts a broker and resolves once `admin.describeCluster()` answers. Retries once after a
   * timeout (or a port lost to someone else); fails at once, with its output, if the JVM exits.
   */
  static async start(options: BrokerOptions = {}): Promise<LocalKafkaBroker> {
    requireJava();
    const lib = kafkaLib();
    for (let attempt = 1; ; attempt++) {
      try {
        return await LocalKafkaBroker.attempt(lib, options);
      } catch (error) {
        if (!(error instanceof RetryableStart) || attempt >= 2) throw error;
      }
    }
  }

  private static async attempt(lib: string, options: BrokerOptions): Promise<LocalKafkaBroker> {
    const dataDir = resolve(options.dataDir ?? mkdtempSync(join(tmpdir(), 'shoal-kafka-')));
    const created = options.dataDir === undefined || !existsSync(dataDir);
    const running = created ? undefined : runningBroker(dataDir);
    if (running) throw new Error(`a Kafka broker (pid ${running.pid}, ${running.brokers.join(',')}) already runs in ${dataDir}`);
    mkdirSync(dataDir, { recursive: true });
    const [port, controller] = options.ports ? [options.ports.broker, options.ports.controller] : ((await freePorts(2)) as [number, number]);
    const config = join(dataDir, 'server.properties');
    const log4j = join(dataDir, 'log4j.properties');
    const logFile = resolve(options.logFile ?? join(dataDir, 'broker.log'));
    mkdirSync(dirname(logFile), { recursive: true });
    const outFile = join(dataDir, 'broker.out');
    writeFileSync(config, `${serverProperties(port, controller, join(dataDir, 'data'), '127.0.0.1', options.node)}${(options.serverProperties ?? []).map((line) => `${line}\n`).join('')}`);
    writeFileSync(log4j, log4jProperties(logFile));
    const classpath = `${lib}/*`;

    // Storage a broker left in this data dir keeps its cluster id; else a new one.
    const clusterId = formattedClusterId(join(dataDir, 'data')) ?? options.node?.clusterId ?? randomClusterId();
    const format = spawnSync(
      'java',
      [`-Dlog4j.configuration=file:${log4j}`, '-cp', classpath, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', config, '--ignore-formatted'],
      { encoding: 'utf8', timeout: 60_000, env: process.env },
    );
    if (format.status !== 0) {
      if (created) rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`formatting the Kafka storage in ${dataDir} failed:\n${format.stderr || format.stdout || format.error?.message}`);
    }

    const out = openSync(outFile, 'a');
    let child: ChildProcess;
    try {
      const java = ['java', '-Xms256m', '-Xmx1g', '-XX:+UseG1GC', '-cp', classpath, `-Dlog4j.configuration=file:${log4j}`, 'kafka.Kafka', config];
      // `ip netns exec` execs java in the namespace: the pid stays the JVM's.
      const command = options.node?.netns ? ['ip', 'netns', 'exec', options.node.netns, ...java] : java;
      child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', out, out], detached: options.detached ?? false, env: process.env });
    } finally {
      closeSync(out);
    }
    if (child.pid === undefined) {
      const error = await new Promise<Error>((done) => child.once('error', done));
      throw new Error(`cannot start the Kafka broker: ${error.message}`);
    }
    if (process.env.SHOAL_BROKER_PIDFILE) appendFileSync(process.env.SHOAL_BROKER_PIDFILE, `${child.pid}\n`);
    // Never keeps this process alive by itself; without `detached` the watchdog stops it should this process die.
    child.unref();
    const watchdog = options.detached ? undefined : startWatchdog(child.pid, dataDir);

    const brokers = [`${options.node?.host ?? '127.0.0.1'}:${port}`];
    const broker = new LocalKafkaBroker(child, watchdog, brokers, dataDir, logFile, { broker: port, controller }, options.startTimeoutMs, options.node, options.serverProperties);
    writeFileSync(join(dataDir, 'broker.json'), `${JSON.stringify({ pid: child.pid, brokers, dataDir, logFile, version: KAFKA_VERSION } satisfies BrokerInfo)}\n`);
    try {
      await broker.waitUntilReady(options.startTimeoutMs ?? 60_000);
    } catch (error) {
      await broker.stop();
      throw error;
    }
    return broker;
  }

  private async waitUntilReady(timeoutMs: number): Promise<void> {
    const kafka = new Kafka({
      clientId: 'shoal-broker-probe',
      brokers: this.brokers,
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      connectionTimeout: 1_000,
      requestTimeout: 5_000,
    });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exited) {
        // Quoted here: stop() removes the data dir (a logFile outside it stays).
        const output = `--- the JVM's output:\n${tail(this.outFile)}\n--- ERROR lines of ${this.logFile}:\n${errorLines(this.logFile)}\n--- its end:\n${tail(this.logFile, 15)}`;
        const message = `the Kafka broker exited while starting (${this.exitStatus}):\n${output}`;
        throw /Address already in use|BindException/.test(output) ? new RetryableStart(message) : new Error(message);
      }
      const admin = kafka.admin();
      try {
        await admin.connect();
        const { brokers } = await admin.describeCluster();
        if (brokers.length > 0) return;
      } catch {
        // not listening yet
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
      if (Date.now() > deadline) {
        throw new RetryableStart(`the Kafka broker did not answer within ${timeoutMs} ms:\n${tail(this.logFile)}`);
      }
      await sleep(250);
    }
  }

  /**
   * Kills the JVM with SIGKILL — a crash, no clean shutdown — and keeps its data dir, so that
   * restart() can start a broker on it again. Resolves once the JVM is gone.
   */
  async kill(): Promise<void> {
    this.watchdog?.kill('SIGKILL');
    if (!this.exited) {
      const gone = new Promise((done) => this.child.once('exit', done));
      try {
        process.kill(this.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await gone;
    }
  }

  /** SIGTERM — a clean, controlled shutdown (its partition leaderships move first) — keeping the data dir for restart(). */
  async shutdown(): Promise<void> {
    this.watchdog?.kill('SIGKILL');
    await stopPid(this.child.pid, () => this.exited);
  }

  /** Is the JVM still running? */
  get running(): boolean {
    return !this.exited;
  }

  /** The controller quorum's leader as this running node's quorum-state file names it (undefined once it is down, or while there is none). */
  quorumLeader(): number | undefined {
    if (this.exited) return undefined;
    try {
      const state = JSON.parse(readFileSync(join(this.dataDir, 'data', '__cluster_metadata-0', 'quorum-state'), 'utf8')) as { leaderId?: number };
      return typeof state.leaderId === 'number' && state.leaderId >= 0 ? state.leaderId : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * A broker again, after kill(), on this one's data dir and ports: the same topics and
   * records, at the address its clients already know (the JVM's recovery of a crashed log
   * included). This one is done with; stop() the one it returns.
   */
  restart(): Promise<LocalKafkaBroker> {
    if (!this.exited) throw new Error('restart() starts a broker killed or shut down before: kill() or shutdown() this one first');
    return LocalKafkaBroker.start({
      dataDir: this.dataDir,
      logFile: this.logFile,
      ports: this.ports,
      ...(this.startTimeoutMs !== undefined ? { startTimeoutMs: this.startTimeoutMs } : {}),
      ...(this.node ? { node: this.node } : {}),
      ...(this.extraProperties ? { serverProperties: this.extraProperties } : {}),
    });
  }

  /** SIGTERM, up to 20 s for a clean shutdown, then SIGKILL; then removes the data dir. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.watchdog?.kill('SIGKILL');
      await stopPid(this.child.pid, () => this.exited);
      rmSync(this.dataDir, { recursive: true, force: true });
    })();
    return this.stopping;
  }
}

/**
 * A bash process that waits for its stdin (a pipe from this process) to close: if this
 * process dies without stop(), it stops the process `pid` (SIGTERM, up to 20 s, SIGKILL),
 * runs `afterwards` (a bash command, if any) and removes the data dir. It is killed when
 * that process exits or stop() runs, so it never signals a pid that is no longer ours.
 */
export const startWatchdog = (pid: number, dataDir: string, afterwards = ''): ChildProcess | undefined => {
  const script = [
    'read -r _ || true',
    // Only while that pid is still the process started in the data dir (its command line names it).
    'ours() { [ ! -d /proc ] || grep -qF -- "$2" "/proc/$1/cmdline" 2>/dev/null; }',
    'if ours "$@" && kill -TERM "$1" 2>/dev/null; then',
    '  for ((i = 0; i < 200; i++)); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done',
    '  kill -KILL "$1" 2>/dev/null || true',
    'fi',
    'eval "$3"',
    'rm -rf "$2"',
  ].join('\n');
  try {
    const watchdog = spawn('bash', ['-c', script, 'shoal-watchdog', String(pid), dataDir, afterwards], { stdio: ['pipe', 'ignore', 'ignore'], detached: true, env: process.env });
    watchdog.on('error', () => undefined);
    watchdog.unref();
    (watchdog.stdin as unknown as Socket | null)?.unref();
    return watchdog;
  } catch {
    return undefined;
  }
};

/** Stops a broker JVM by pid: SIGTERM, up to 20 s, then SIGKILL. */
export const stopPid = async (pid: number | undefined, exited: () => boolean = () => !alive(pid ?? -1)): Promise<void> => {
  if (!pid || exited()) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + 20_000;
  while (!exited() && Date.now() < deadline) await sleep(100);
  if (exited()) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  while (!exited() && Date.now() < deadline + 5_000) await sleep(50);
};

/** The command line of a live process, or undefined (Linux /proc, else `ps`). */
const commandLine = (pid: number): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    const ps = spawnSync('ps', ['-p', String(pid), '-o', 'args='], { encoding: 'utf8' });
    return ps.status === 0 ? ps.stdout.trim() : undefined;
  }
};

/** The broker a previous `kafka:start` left running in `dataDir`, if that very JVM still runs. */
export const runningBroker = (dataDir: string): BrokerInfo | undefined => {
  const file = join(resolve(dataDir), 'broker.json');
  if (!existsSync(file)) return undefined;
  let info: BrokerInfo;
  try {
    info = JSON.parse(readFileSync(file, 'utf8')) as BrokerInfo;
  } catch {
    return undefined;
  }
  if (!Number.isInteger(info.pid) || info.pid <= 0 || !alive(info.pid)) return undefined;
  // A pid from an old broker.json may since belong to some other process: never signal that one.
  const args = commandLine(info.pid);
  return args?.includes('kafka.Kafka') && args.includes(resolve(dataDir)) ? info : undefined;
};
