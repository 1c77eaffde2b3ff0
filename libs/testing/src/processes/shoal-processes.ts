/**
 * Shoal as separate processes, for end-to-end tests: a data dir of their own, the
 * environment every process gets — on the test broker with a topic prefix of their own,
 * or on the embedded log in the data dir — and every process started through it stopped
 * again (and the data dir removed) by close().
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testBrokers, testProcessKafkaEnv } from '../kafka-topic';
import { ShoalProcess } from './spawn-shoal';

export class ShoalProcesses {
  private readonly processes: ShoalProcess[] = [];

  private constructor(
    readonly dataDir: string,
    readonly env: NodeJS.ProcessEnv,
    /** SHOAL_TOPIC_PREFIX on Kafka (the log is the topic `<prefix>.events`); undefined on the embedded log. */
    readonly topicPrefix: string | undefined,
  ) {}

  /**
   * On the test broker, or the one `env.KAFKA_BROKERS` names. The test broker is reached
   * through its SASL_SSL listener (mutual TLS, SCRAM-SHA-512) when the run's broker has one,
   * as a deployment behind TLS and authentication would reach it; the test's own clients
   * use its PLAINTEXT listener (KAFKA_BROKERS). `name` names the data dir (`shoal-<name>-…`)
   * and the topic prefix; `env` adds to the environment.
   */
  static onKafka(name: string, env: NodeJS.ProcessEnv = {}): ShoalProcesses {
    const dataDir = mkdtempSync(join(tmpdir(), `shoal-${name}-`));
    const topicPrefix = `shoal-${name}-${randomUUID()}`;
    // The run's broker through its SASL_SSL listener, unless the test names a broker of its own.
    const secure = env.KAFKA_BROKERS === undefined ? testProcessKafkaEnv() : {};
    const brokers = env.KAFKA_BROKERS ?? secure.KAFKA_BROKERS ?? testBrokers().join(',');
    return new ShoalProcesses(dataDir, { ...process.env, SHOAL_TOPIC_PREFIX: topicPrefix, SHOAL_DATA_DIR: dataDir, ...secure, ...env, KAFKA_BROKERS: brokers }, topicPrefix);
  }

  /** On the embedded log in the data dir (`shoal-<name>-…`); `env` adds to the environment. */
  static embedded(name: string, env: NodeJS.ProcessEnv = {}): ShoalProcesses {
    const dataDir = mkdtempSync(join(tmpdir(), `shoal-${name}-`));
    return new ShoalProcesses(dataDir, { ...process.env, SHOAL_DATA_DIR: dataDir, KAFKA_BROKERS: '', ...env }, undefined);
  }

  /** `shoal <args>` as a long-running process (`run reaper`, `agent --simulate 2`, …); `env` adds to the environment. */
  cli(args: readonly string[], env: NodeJS.ProcessEnv = {}): ShoalProcess {
    return this.track(ShoalProcess.cli(args, { ...this.env, ...env }));
  }

  /** `shoal <args>` as a long-running process in the network namespace `netns` (one host of a HostsNetwork). */
  cliIn(netns: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): ShoalProcess {
    return this.track(ShoalProcess.cli(args, { ...this.env, ...env }, netns));
  }

  /** The all-in-one process (`npm start`). */
  start(): ShoalProcess {
    return this.track(ShoalProcess.start(this.env));
  }

  /** What every process started here has printed so far, one string each. */
  outputs(): string[] {
    return this.processes.map((p) => p.output);
  }

  /** Stops every process started here, then removes the data dir. */
  async close(): Promise<void> {
    await Promise.all(this.processes.splice(0).map((p) => p.stop()));
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  private track(p: ShoalProcess): ShoalProcess {
    this.processes.push(p);
    return p;
  }
}
