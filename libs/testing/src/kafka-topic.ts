/**
 * The scaffolding of an integration test on a real Kafka broker: the brokers jest found,
 * a fresh topic, the event logs opened on it and the things started on them (component
 * runners, live views, servers), all stopped and closed again in one call.
 */
import { randomUUID } from 'node:crypto';
import { KafkaEventLog } from '@shoal/eventlog';

/** The brokers KAFKA_BROKERS names (comma-separated); throws when there are none. */
/**
 * The environment of a Shoal process that reaches the run's broker through its SASL_SSL
 * listener (SHOAL_TEST_PROCESS_KAFKA, set by jest's global setup); empty when the broker has
 * none (one given by KAFKA_BROKERS, or the 3-node cluster).
 */
export const testProcessKafkaEnv = (env: NodeJS.ProcessEnv = process.env): Record<string, string> => {
  const given = env.SHOAL_TEST_PROCESS_KAFKA;
  return given ? (JSON.parse(given) as Record<string, string>) : {};
};

export const testBrokers = (env: NodeJS.ProcessEnv = process.env): string[] => {
  const brokers = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean);
  if (brokers.length === 0) {
    throw new Error('KAFKA_BROKERS is not set: integration tests need a real broker (run them through jest, whose global setup finds or starts one).');
  }
  return brokers;
};

/** Anything a test starts and must stop: a ComponentRunner, a LiveView, a server. */
export interface Stoppable {
  stop(): Promise<void>;
}
export interface Startable extends Stoppable {
  start(): Promise<unknown>;
}

/**
 * A fresh topic (`shoal-test-<uuid>.events`) and what a test opened and started on it.
 * `close()` stops what is still running, the last started first, then closes every log.
 */
export class KafkaTestTopic {
  readonly name = `shoal-test-${randomUUID()}.events`;
  private readonly logs: KafkaEventLog[] = [];
  private readonly running: Stoppable[] = [];

  /** Reads KAFKA_BROKERS now: a test file without a broker fails as it loads. */
  constructor(
    private readonly clientId: string,
    readonly brokers: readonly string[] = testBrokers(),
  ) {}

  /** A new client's log on this topic; closed by close(). */
  async open(clientId: string = this.clientId): Promise<KafkaEventLog> {
    const log = await KafkaEventLog.open({ brokers: this.brokers, topic: this.name, clientId });
    this.logs.push(log);
    return log;
  }

  /** Starts `thing`, to be stopped by stop(thing) or close(). */
  async start<T extends Startable>(thing: T): Promise<T> {
    this.running.push(thing);
    await thing.start();
    return thing;
  }

  /** Stops one started thing now (a failover), and forgets it. */
  async stop(thing: Stoppable): Promise<void> {
    await thing.stop();
    const at = this.running.indexOf(thing);
    if (at >= 0) this.running.splice(at, 1);
  }

  /** Stops everything still running, one after the other and the last started first, then closes every log. */
  async close(): Promise<void> {
    for (const thing of this.running.splice(0).reverse()) await thing.stop();
    await Promise.all(this.logs.splice(0).map((log) => log.close()));
  }
}
