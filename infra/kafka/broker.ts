/**
 * A real Kafka broker (KRaft, broker + controller in one JVM) on 127.0.0.1, from the
 * jars infra/kafka/fetch.sh caches: for tests and local runs on machines with no Docker.
 * Free ports, formatted storage, readiness by asking the broker, logs to files, clean stop.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';

const HERE = __dirname;

export interface BrokerOptions {
  /** Where storage, config and logs go; a fresh temporary folder by default. */
  readonly dataDir?: string;
  /** How long to wait for the broker to answer, per attempt. */
  readonly startTimeoutMs?: number;
  /** Leave the JVM running when this process exits (for `npm run kafka:start`). */
  readonly detached?: boolean;
}

export interface BrokerInfo {
  readonly pid: number;
  readonly brokers: string[];
  readonly dataDir: string;
}

/** A port nobody listens on right now, on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });

/** The jar folder, fetching the jars if needed; a clear error naming Java or Maven otherwise. */
export const kafkaLib = (): string => {
  const result = spawnSync('bash', [join(HERE, 'fetch.sh')], { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`cannot prepare the Kafka test broker: ${(result.stderr || result.stdout || result.error?.message || '').trim()}`);
  }
  return result.stdout.trim().split('\n').pop()!;
};

const javaPresent = (): boolean => spawnSync('java', ['-version'], { encoding: 'utf8' }).status === 0;

const serverProperties = (port: number, controller: number, logDirs: string): string =>
  [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controller}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    'inter.broker.listener.name=PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    `log.dirs=${logDirs}`,
    'auto.create.topics.enable=false',
    'num.partitions=1',
    'log.retention.ms=-1',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    'group.min.session.timeout.ms=1000',
    '',
  ].join('\n');

const log4j = (file: string): string =>
  [
    'log4j.rootLogger=INFO, file',
    'log4j.appender.file=org.apache.log4j.FileAppender',
    `log4j.appender.file.File=${file}`,
    'log4j.appender.file.layout=org.apache.log4j.PatternLayout',
    'log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n',
    'log4j.logger.kafka=INFO',
    'log4j.logger.org.apache.kafka=WARN',
    'log4j.logger.kafka.request.logger=WARN',
    'log4j.logger.state.change.logger=WARN',
    '',
  ].join('\n');

const tail = (file: string, lines = 25): string => {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class LocalKafkaBroker {
  private exited = false;

  private constructor(
    private readonly child: ChildProcess,
    readonly brokers: string[],
    readonly dataDir: string,
    readonly logFile: string,
    private readonly ownsDataDir: boolean,
  ) {
    child.once('exit', () => (this.exited = true));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Starts a broker and resolves once it answers; one retry if the first attempt times out. */
  static async start(options: BrokerOptions = {}): Promise<LocalKafkaBroker> {
    if (!javaPresent()) {
      throw new Error('cannot start the Kafka test broker: Java 17 not found on PATH (Debian: apt-get install openjdk-17-jre-headless)');
    }
    const lib = kafkaLib();
    try {
      return await LocalKafkaBroker.attempt(lib, options);
    } catch (error) {
      if (!(error instanceof BrokerTimeout)) throw error;
      return LocalKafkaBroker.attempt(lib, options);
    }
  }

  private static async attempt(lib: string, options: BrokerOptions): Promise<LocalKafkaBroker> {
    const ownsDataDir = options.dataDir === undefined;
    const dataDir = resolve(options.dataDir ?? mkdtempSync(join(tmpdir(), 'shoal-kafka-')));
    mkdirSync(dataDir, { recursive: true });
    const [port, controller] = [await freePort(), await freePort()];
    const config = join(dataDir, 'server.properties');
    writeFileSync(config, serverProperties(port, controller, join(dataDir, 'data')));
    writeFileSync(join(dataDir, 'log4j.properties'), log4j(join(dataDir, 'broker.log')));
    const classpath = `${lib}/*`;
    const clusterId = randomBytes(16).toString('base64url');
    const format = spawnSync(
      'java',
      ['-cp', classpath, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', config, '--ignore-formatted'],
      { encoding: 'utf8' },
    );
    if (format.status !== 0) throw new Error(`formatting the Kafka storage failed:\n${format.stderr || format.stdout}`);

    const out = join(dataDir, 'broker.out');
    const fd = openSync(out, 'a');
    const child = spawn(
      'java',
      [
        '-Xms256m',
        '-Xmx1g',
        '-XX:+UseG1GC',
        '-cp',
        classpath,
        `-Dlog4j.configuration=file:${join(dataDir, 'log4j.properties')}`,
        'kafka.Kafka',
        config,
      ],
      { stdio: ['ignore', fd, fd], detached: options.detached ?? false },
    );
    if (options.detached) child.unref();
    if (child.pid && process.env.SHOAL_BROKER_PIDFILE) appendFileSync(process.env.SHOAL_BROKER_PIDFILE, `${child.pid}\n`);
    const brokers = [`127.0.0.1:${port}`];
    const broker = new LocalKafkaBroker(child, brokers, dataDir, join(dataDir, 'broker.log'), ownsDataDir);
    writeFileSync(join(dataDir, 'broker.json'), JSON.stringify({ pid: child.pid ?? -1, brokers, dataDir } satisfies BrokerInfo));
    try {
      await broker.waitUntilReady(options.startTimeoutMs ?? 60_000);
    } catch (error) {
      await broker.stop();
      throw error;
    }
    return broker;
  }

  private async waitUntilReady(timeoutMs: number): Promise<void> {
    const kafka = new Kafka({ brokers: this.brokers, logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 1_000 });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exited) {
        throw new Error(`the Kafka broker exited while starting:\n${tail(join(this.dataDir, 'broker.out'))}\n${tail(this.logFile)}`);
      }
      const admin = kafka.admin();
      try {
        await admin.connect();
        const { brokers } = await admin.describeCluster();
        if (brokers.length > 0) return;
      } catch {
        // not yet
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
      if (Date.now() > deadline) throw new BrokerTimeout(`the Kafka broker did not answer within ${timeoutMs} ms:\n${tail(this.logFile)}`);
      await sleep(250);
    }
  }

  /** SIGTERM, up to 20 s for a clean shutdown, then SIGKILL; removes the data it made. */
  async stop(): Promise<void> {
    await stopPid(this.child.pid, () => this.exited);
    if (this.ownsDataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

class BrokerTimeout extends Error {}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Stops a broker JVM by pid: SIGTERM, wait, SIGKILL. */
export const stopPid = async (pid: number | undefined, exited: () => boolean = () => !alive(pid ?? -1)): Promise<void> => {
  if (!pid || exited()) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + 20_000;
  while (!exited() && Date.now() < deadline) await sleep(100);
  if (!exited()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
    while (!exited() && Date.now() < deadline + 5_000) await sleep(50);
  }
};

/** The broker a previous `kafka:start` left running in `dataDir`, if it is still alive. */
export const runningBroker = (dataDir: string): BrokerInfo | undefined => {
  const file = join(dataDir, 'broker.json');
  if (!existsSync(file)) return undefined;
  const info = JSON.parse(readFileSync(file, 'utf8')) as BrokerInfo;
  return alive(info.pid) ? info : undefined;
};
