/**
 * Shoal as separate processes on the test broker, for end-to-end tests: a data dir and a
 * topic prefix of their own, the environment every process gets, and every process started
 * through it stopped again (and the data dir removed) by close().
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testBrokers } from '../kafka-topic';
import { ShoalProcess } from './spawn-shoal';

export class ShoalOnKafka {
  readonly dataDir: string;
  /** SHOAL_TOPIC_PREFIX: the log is the topic `<prefix>.events`. */
  readonly topicPrefix: string;
  readonly env: NodeJS.ProcessEnv;
  private readonly processes: ShoalProcess[] = [];

  /** `name` names the data dir (`shoal-<name>-…`) and the topic prefix; `env` adds to (or overrides) the environment. */
  constructor(name: string, env: NodeJS.ProcessEnv = {}) {
    this.dataDir = mkdtempSync(join(tmpdir(), `shoal-${name}-`));
    this.topicPrefix = `shoal-${name}-${randomUUID()}`;
    this.env = { ...process.env, KAFKA_BROKERS: testBrokers().join(','), SHOAL_TOPIC_PREFIX: this.topicPrefix, SHOAL_DATA_DIR: this.dataDir, ...env };
  }

  /** `shoal <args>` as a long-running process (`run reaper`, `agent --simulate 2`, …). */
  cli(args: readonly string[]): ShoalProcess {
    return this.track(ShoalProcess.cli(args, this.env));
  }

  /** The all-in-one process (`npm start`). */
  start(): ShoalProcess {
    return this.track(ShoalProcess.start(this.env));
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
